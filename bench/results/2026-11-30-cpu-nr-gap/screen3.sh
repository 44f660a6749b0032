#!/bin/sh
cd "$(dirname "$0")"
./screen.sh s-box2-b0.25 kind=box2,b=0.25
./screen.sh s-box2-b0.5 kind=box2,b=0.5
./screen.sh s-lmin3-b0.5 kind=lmin3,b=0.5
