/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The product's entry point: the commands of cmd/dispatch.c, no hooks. */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	static const struct cmd_hooks none;

	return cmd_main(argc, argv, NULL, &none);
}
