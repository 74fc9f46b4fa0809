/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ondisk/err.h"

const char *od_strerror(enum od_err e)
{
	switch (e) {
	case OD_OK:
		return "ok";
	case OD_ESHORT:
		return "truncated";
	case OD_EMAGIC:
		return "bad magic";
	case OD_ECRC:
		return "bad crc";
	case OD_EFIELD:
		return "bad field";
	}
	return "unknown error";
}
