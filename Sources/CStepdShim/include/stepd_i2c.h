#ifndef STEPD_I2C_H
#define STEPD_I2C_H
/* i2c-dev ioctls and libi2c SMBus calls. Every function returns >= 0 on success and -errno on failure. */
#include <stdint.h>

/* Adapter functionality bits (linux/i2c.h) the Swift side needs. */
#define STEPD_I2C_FUNC_I2C 0x00000001UL
#define STEPD_I2C_FUNC_SMBUS_READ_I2C_BLOCK 0x04000000UL
#define STEPD_I2C_FUNC_SMBUS_WRITE_BYTE_DATA 0x00100000UL
#define STEPD_I2C_FUNC_SMBUS_WRITE_BYTE 0x00040000UL
/* Longest SMBus I2C-block transfer. */
#define STEPD_SMBUS_BLOCK_MAX 32

/* I2C_FUNCS: the adapter's functionality mask. */
int stepd_i2c_functionality(int fd, unsigned long *out);
/* I2C_RDWR: writes `write_len` bytes, then (when read_len > 0) reads `read_len` bytes after a
 * repeated start, in one ioctl. */
int stepd_i2c_write_read(int fd, uint16_t address, const uint8_t *write, uint16_t write_len,
                         uint8_t *read, uint16_t read_len);
/* I2C_SLAVE: the address later SMBus calls go to. */
int stepd_i2c_set_address(int fd, uint16_t address);
/* SMBus I2C-block read of up to 32 bytes starting at `command`; returns the count read. */
int stepd_smbus_read_block(int fd, uint8_t command, uint8_t length, uint8_t *out);
/* SMBus write byte data / write byte / I2C-block write (<= 32 bytes). */
int stepd_smbus_write_byte_data(int fd, uint8_t command, uint8_t value);
int stepd_smbus_write_byte(int fd, uint8_t value);
int stepd_smbus_write_block(int fd, uint8_t command, uint8_t length, const uint8_t *values);

#endif
