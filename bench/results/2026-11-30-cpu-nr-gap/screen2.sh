#!/bin/sh
cd "$(dirname "$0")"
./screen.sh s8-lmin3-b0.25 q=8bit,kind=lmin3,b=0.25 0.4 50 1280
./screen.sh s8-lmin3s-b0.25 q=8bit,kind=lmin3s,b=0.25 0.4 50 1280
./screen.sh s8-lmin3n-b0.25 q=8bit,kind=lmin3n,b=0.25 0.4 50 1280
./screen.sh s8-lmin3-b0.25-0.3 q=8bit,kind=lmin3,b=0.25 0.3,0.35 50 1280
