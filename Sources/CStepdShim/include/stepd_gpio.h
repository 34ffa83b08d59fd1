#ifndef STEPD_GPIO_H
#define STEPD_GPIO_H
/* libgpiod 1.6 rising-edge events on one line. Functions return >= 0 on success, -errno on failure. */
#include <stdint.h>

typedef struct stepd_gpio_line stepd_gpio_line;

/* Opens `chip` ("gpiochip0", or a /dev path) and requests rising-edge events on `offset` under
 * `consumer` (shown by gpioinfo). */
int stepd_gpio_line_open(const char *chip, unsigned int offset, const char *consumer, stepd_gpio_line **out);
/* The descriptor that becomes readable when an event is pending (for poll). */
int stepd_gpio_line_fd(stepd_gpio_line *line);
/* Waits up to `timeout_ns` for an event: 1 pending, 0 timed out. */
int stepd_gpio_line_wait(stepd_gpio_line *line, int64_t timeout_ns);
/* Reads one pending event; its kernel timestamp (CLOCK_MONOTONIC on Linux >= 5.7) in ns. */
int stepd_gpio_line_read(stepd_gpio_line *line, int64_t *timestamp_ns);
void stepd_gpio_line_close(stepd_gpio_line *line);

#endif
