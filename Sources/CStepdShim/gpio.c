#define _GNU_SOURCE
#include "stepd_gpio.h"

#include <errno.h>
#include <gpiod.h>
#include <stdlib.h>
#include <time.h>

struct stepd_gpio_line {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
};

/* libgpiod 1.6 reports failures as -1 with errno set; keep errno, never report 0 as a failure. */
static int failure(void) { return errno > 0 ? -errno : -EIO; }

int stepd_gpio_line_open(const char *chip_name, unsigned int offset, const char *consumer, stepd_gpio_line **out) {
    struct gpiod_chip *chip = chip_name[0] == '/' ? gpiod_chip_open(chip_name) : gpiod_chip_open_by_name(chip_name);
    if (chip == NULL) return failure();
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (line == NULL) {
        int err = failure();
        gpiod_chip_close(chip);
        return err;
    }
    if (gpiod_line_request_rising_edge_events(line, consumer) != 0) {
        int err = failure();
        gpiod_chip_close(chip);
        return err;
    }
    stepd_gpio_line *handle = malloc(sizeof *handle);
    if (handle == NULL) {
        gpiod_line_release(line);
        gpiod_chip_close(chip);
        return -ENOMEM;
    }
    handle->chip = chip;
    handle->line = line;
    *out = handle;
    return 0;
}

int stepd_gpio_line_fd(stepd_gpio_line *line) {
    int fd = gpiod_line_event_get_fd(line->line);
    return fd < 0 ? failure() : fd;
}

int stepd_gpio_line_wait(stepd_gpio_line *line, int64_t timeout_ns) {
    if (timeout_ns < 0) timeout_ns = 0;
    struct timespec timeout = {.tv_sec = (time_t)(timeout_ns / 1000000000), .tv_nsec = (long)(timeout_ns % 1000000000)};
    int result = gpiod_line_event_wait(line->line, &timeout);
    return result < 0 ? failure() : result;
}

int stepd_gpio_line_read(stepd_gpio_line *line, int64_t *timestamp_ns) {
    struct gpiod_line_event event;
    if (gpiod_line_event_read(line->line, &event) != 0) return failure();
    *timestamp_ns = (int64_t)event.ts.tv_sec * 1000000000 + (int64_t)event.ts.tv_nsec;
    return 0;
}

void stepd_gpio_line_close(stepd_gpio_line *line) {
    if (line == NULL) return;
    gpiod_line_release(line->line);
    gpiod_chip_close(line->chip);
    free(line);
}
