#!/bin/sh
cd "$(dirname "$0")"
./screen.sh s-lmin3 kind=lmin3
./screen.sh s-box2 kind=box2
./screen.sh s-lmin3-b0.25 kind=lmin3,b=0.25
./screen.sh s-nmso-0.875-0.25 kind=ms,a=0.875,b=0.25
./screen.sh s-oms-early1 kind=ms,b=0.5,t=5,b1=1.0
./screen.sh s-aoms kind=aoms,b=0.5
