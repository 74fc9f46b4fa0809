/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner's side of plan_limits.h: which AGs may change, which
 * inodes may move, and the figures of the AGs left alone.  Every call is
 * a no-op (everything allowed) when the plan has no limits.
 *
 * For an inode planner (renumbering): with limits, give new numbers only
 * to inodes plan_lim_movable() allows, in AGs plan_lim_ag() allows;
 * plan_lim_finish() rebuilds the AGs that plan.ino and plan.ich touch,
 * provided they are filled in before it runs.
 */
#ifndef CORE_PLAN_LIMITS_PRIV_H
#define CORE_PLAN_LIMITS_PRIV_H

#include "core/relocate/plan_priv.h"
#include "core/relocate/plan_limits.h"

/* Work out the AG set and every inode's standing (after the walk). */
int plan_lim_setup(struct planner *pl, const struct plan_limits *l);
void plan_lim_release(struct planner *pl);
/* May AG agno change? */
bool plan_lim_ag(const struct planner *pl, uint32_t agno);
/* Do the limits move a few chosen inodes (place them near, plan_near.c)? */
bool plan_lim_near(const struct planner *pl);
/* May inode (dense index) idx move? */
bool plan_lim_movable(const struct planner *pl, uint32_t idx);
/* Must the inode's forks stay exactly as they are (not even rebuilt)?
 * Known after plan_lim_settle. */
bool plan_lim_keep(const struct planner *pl, uint32_t idx);
/* Does AG agno change (its btrees rebuilt)?  All, until settled. */
bool plan_lim_rebuild(const struct planner *pl, uint32_t agno);
/* The AG a full plan gives the fork of unit u (with limits.home). */
bool plan_lim_home(const struct agplan *aps, const struct unit_ref *u,
		   uint32_t *agno);
/* After placement: which AGs change, which btree forks are kept. */
int plan_lim_settle(struct planner *pl, struct agplan *aps);
/* Pin the units of this AG that hold an inode that may not move, or
 * only inodes the soft limits leave alone (before the obstacles merge). */
int plan_lim_pin(struct agplan *ap);
/* After finish_ag: the AGs left alone keep their figures; the files in
 * the way and the AGs added. */
int plan_lim_finish(struct planner *pl, struct agplan *aps);

#endif
