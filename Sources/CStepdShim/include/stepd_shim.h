#ifndef STEPD_SHIM_H
#define STEPD_SHIM_H
int stepd_shim_placeholder(void);
#endif
