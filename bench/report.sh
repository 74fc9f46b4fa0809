#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report against xfs_db -r -c frag on 1,000,000-inode images, in one run:
# cold (page cache dropped before every command) and warm, alternating,
# RUNS samples each; medians and spread, the ratio, inodes/s, peak RSS per
# inode, and cold report against dd reading the same inode-chunk bytes
# with direct I/O (the ranges come from the test binary's debug-inoruns).
# Usage: bench/report.sh [-n RUNS] [-c | -w] [IMAGE | DEVICE]...
#   without IMAGE: the two bench images (bench/lib.sh), made if missing
#   (needs a loop device).  Cold runs need root.  Extra options
#   for report: REPORT_OPTS (e.g. "--direct" or "-j 4").
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b_setup "$@"
b_compare report "$B_BIN report ${REPORT_OPTS:-}" "xfs_db -r -c frag"
