#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check against xfs_repair -n on 1,000,000-inode images, in one run:
# cold (page cache dropped before every command) and warm, alternating,
# RUNS samples each; medians and spread, the ratio, inodes/s, peak RSS per
# inode, and cold check against dd reading the inode-chunk bytes with
# direct I/O.
# Usage: bench/check.sh [-n RUNS] [-c | -w] [IMAGE | DEVICE]...
#   as bench/report.sh; extra options for check: CHECK_OPTS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b_setup "$@"
b_compare check "$B_BIN check ${CHECK_OPTS:-}" "xfs_repair -n"
