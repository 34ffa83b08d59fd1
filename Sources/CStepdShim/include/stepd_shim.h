#ifndef STEPD_SHIM_H
#define STEPD_SHIM_H
/* Umbrella header: each concern has its own header. */
#include "stepd_posix.h"
#include "stepd_i2c.h"
#include "stepd_gpio.h"
#endif
