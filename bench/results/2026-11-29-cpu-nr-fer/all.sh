#!/bin/sh
# Everything in this folder, in order (release build of -p sigpu-cli first).
cd "$(dirname "$0")"
./calibrate_bg2.sh
./peer_check.sh
./sweep_bg1.sh
