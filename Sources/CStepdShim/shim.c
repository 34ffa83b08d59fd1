#include "stepd_shim.h"
int stepd_shim_placeholder(void) { return 0; }
