#define _GNU_SOURCE
#include "stepd_i2c.h"

#include <errno.h>
#include <i2c/smbus.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <sys/ioctl.h>
#include <unistd.h>

int stepd_i2c_functionality(int fd, unsigned long *out) {
    unsigned long funcs = 0;
    if (ioctl(fd, I2C_FUNCS, &funcs) < 0) return -errno;
    *out = funcs;
    return 0;
}

int stepd_i2c_write_read(int fd, uint16_t address, const uint8_t *write, uint16_t write_len,
                         uint8_t *read, uint16_t read_len) {
    struct i2c_msg messages[2];
    int count = 0;
    if (write_len > 0) {
        messages[count].addr = address;
        messages[count].flags = 0;
        messages[count].len = write_len;
        /* The kernel copies the buffer and never writes to a write message. */
        messages[count].buf = (uint8_t *)write;
        count++;
    }
    if (read_len > 0) {
        messages[count].addr = address;
        messages[count].flags = I2C_M_RD;
        messages[count].len = read_len;
        messages[count].buf = read;
        count++;
    }
    if (count == 0) return 0;
    struct i2c_rdwr_ioctl_data data = {.msgs = messages, .nmsgs = (uint32_t)count};
    if (ioctl(fd, I2C_RDWR, &data) < 0) return -errno;
    return 0;
}

int stepd_i2c_set_address(int fd, uint16_t address) {
    if (ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0) return -errno;
    return 0;
}

/* libi2c returns -errno itself; normalise anything else negative to -EIO. */
static int normalise(int32_t result) { return result < 0 ? (result >= -4095 ? result : -EIO) : result; }

int stepd_smbus_read_block(int fd, uint8_t command, uint8_t length, uint8_t *out) {
    if (length > STEPD_SMBUS_BLOCK_MAX) return -EINVAL;
    return normalise(i2c_smbus_read_i2c_block_data(fd, command, length, out));
}

int stepd_smbus_write_byte_data(int fd, uint8_t command, uint8_t value) {
    return normalise(i2c_smbus_write_byte_data(fd, command, value));
}

int stepd_smbus_write_byte(int fd, uint8_t value) { return normalise(i2c_smbus_write_byte(fd, value)); }

int stepd_smbus_write_block(int fd, uint8_t command, uint8_t length, const uint8_t *values) {
    if (length > STEPD_SMBUS_BLOCK_MAX) return -EINVAL;
    return normalise(i2c_smbus_write_i2c_block_data(fd, command, length, values));
}
