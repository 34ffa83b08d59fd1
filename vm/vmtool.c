/*
 * vmtool: the helpers the VM test needs inside a busybox initramfs, built with gcc -static so it
 * runs without a C library in the image. Not part of stepd.
 *
 *   vmtool feed DEVICE ADDRESS mpu6050|lis3dh   keep an i2c-stub chip looking like a sampling sensor
 *   vmtool rpc SOCKET JSON                      send one JSON-RPC line to stepd, print the reply line
 *
 * i2c-stub is a plain 256-byte register file: reading FIFO_R_W does not pop anything and the
 * LIS3DH auto-increment bit (0x80) addresses a different stub register than the one it aliases on
 * the real chip. The feeder therefore writes, at the sample rate, a synthetic sample (a 1.8 Hz
 * oscillation in z) into the data registers and into every register a FIFO burst of up to 30 bytes
 * reads, and holds the FIFO level at one burst interval's worth of samples. For the LIS3DH it also
 * mirrors 0x20..0x2F into 0xA0..0xAF so reads with the auto-increment bit see what the driver wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int smbus(int fd, char read_write, uint8_t command, int size, union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data args = {.read_write = read_write, .command = command, .size = size, .data = data};
    return ioctl(fd, I2C_SMBUS, &args) < 0 ? -errno : 0;
}

static int write_block(int fd, uint8_t command, const uint8_t *values, int length) {
    union i2c_smbus_data data;
    data.block[0] = (uint8_t)length;
    memcpy(&data.block[1], values, (size_t)length);
    return smbus(fd, I2C_SMBUS_WRITE, command, I2C_SMBUS_I2C_BLOCK_DATA, &data);
}

static int read_block(int fd, uint8_t command, uint8_t *values, int length) {
    union i2c_smbus_data data;
    data.block[0] = (uint8_t)length;
    int result = smbus(fd, I2C_SMBUS_READ, command, I2C_SMBUS_I2C_BLOCK_DATA, &data);
    if (result == 0) memcpy(values, &data.block[1], (size_t)length);
    return result;
}

static int open_chip(const char *device, int address) {
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -errno;
    if (ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

static double monotonic(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void put16(uint8_t *at, int value, int big_endian) {
    uint16_t raw = (uint16_t)(int16_t)value;
    at[big_endian ? 0 : 1] = (uint8_t)(raw >> 8);
    at[big_endian ? 1 : 0] = (uint8_t)(raw & 0xFF);
}

/* One tick of the MPU-6050 feeder: +-4 g full scale (8192 LSB/g), big-endian samples. X's low
 * byte stays 0x68 because the 30-byte FIFO image covers WHO_AM_I (0x75 = FIFO_R_W + 1). */
static int feed_mpu6050(int fd, double t) {
    uint8_t sample[6];
    put16(sample, 0x0068, 1);
    put16(sample + 2, (int)(0.10 * 8192), 1);
    put16(sample + 4, (int)((1.0 + 0.3 * sin(2 * M_PI * 1.8 * t)) * 8192), 1);
    uint8_t fifo[30];
    for (int i = 0; i < 30; i += 6) memcpy(fifo + i, sample, 6);
    /* 40 samples: what a 40 Hz chip collects between two 1 s bursts. */
    uint8_t count[2] = {0, 240};
    int result;
    if ((result = write_block(fd, 0x3B, sample, 6)) < 0) return result;
    if ((result = write_block(fd, 0x74, fifo, 30)) < 0) return result;
    return write_block(fd, 0x72, count, 2);
}

/* One tick of the LIS3DH feeder: high-resolution +-4 g, 12-bit left-justified little-endian
 * (2 mg per digit). */
static int feed_lis3dh(int fd, double t) {
    uint8_t sample[6];
    put16(sample, (int)(0.02 * 500) << 4, 0);
    put16(sample + 2, (int)(0.10 * 500) << 4, 0);
    put16(sample + 4, (int)((1.0 + 0.3 * sin(2 * M_PI * 1.8 * t)) * 500) << 4, 0);
    uint8_t fifo[30];
    for (int i = 0; i < 30; i += 6) memcpy(fifo + i, sample, 6);
    uint8_t registers[16];
    int result;
    if ((result = read_block(fd, 0x20, registers, 16)) < 0) return result;
    /* STATUS_REG: ZYXDA; OUT_X_L..OUT_Z_H; FIFO_SRC: 25 samples (0.5 s at 50 Hz), no overrun.
     * Only these: the control registers belong to the driver, and writing back what was read a
     * moment ago could undo a write it made in between. */
    registers[0x07] = 0x08;
    memcpy(registers + 8, sample, 6);
    registers[0x0F] = 25;
    if ((result = write_block(fd, 0x27, registers + 7, 7)) < 0) return result;
    if ((result = write_block(fd, 0x2F, registers + 15, 1)) < 0) return result;
    /* The auto-increment image at 0xA0. CTRL_REG1..REFERENCE are copied only when no BOOT is in
     * progress: on the chip BOOT clears itself within the driver's settle time, and a copy taken
     * between the driver's reset and its configuration would make its read-back fail forever
     * (the copy cannot follow a write that is read back microseconds later). */
    static uint8_t controls[7];
    if ((registers[4] & 0x80) == 0) memcpy(controls, registers, 7);
    memcpy(registers, controls, 7);
    return write_block(fd, 0xA0, registers, 16);
}

static volatile sig_atomic_t stopping = 0;
static void on_signal(int signal_number) { (void)signal_number; stopping = 1; }

static int feed(const char *device, int address, const char *chip) {
    int mpu = strcmp(chip, "mpu6050") == 0;
    if (!mpu && strcmp(chip, "lis3dh") != 0) {
        fprintf(stderr, "vmtool feed: chip must be mpu6050 or lis3dh, not %s\n", chip);
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    double period = mpu ? 1.0 / 40 : 1.0 / 50;
    double start = monotonic();
    long ticks = 0, failures = 0;
    int fd = -1;
    while (!stopping) {
        if (fd < 0) fd = open_chip(device, address);
        int result = fd < 0 ? fd : (mpu ? feed_mpu6050(fd, monotonic() - start) : feed_lis3dh(fd, monotonic() - start));
        if (result < 0) {
            /* The adapter went away (rmmod): say so once per outage, then keep trying. */
            if (failures++ == 0) fprintf(stderr, "vmtool feed: %s 0x%02x: %s\n", device, address, strerror(-result));
            if (fd >= 0) close(fd);
            fd = -1;
            usleep(100000);
            continue;
        }
        failures = 0;
        ticks++;
        double next = start + (double)ticks * period;
        double wait = next - monotonic();
        if (wait > 0) usleep((useconds_t)(wait * 1e6));
    }
    if (fd >= 0) close(fd);
    return 0;
}

static int rpc(const char *path, const char *request) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { perror("vmtool rpc: socket"); return 1; }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) { fprintf(stderr, "vmtool rpc: socket path too long\n"); return 1; }
    strcpy(address.sun_path, path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        fprintf(stderr, "vmtool rpc: connect %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t length = strlen(request);
    char *line = malloc(length + 2);
    if (!line) return 1;
    memcpy(line, request, length);
    line[length] = '\n';
    for (size_t sent = 0; sent < length + 1;) {
        ssize_t n = write(fd, line + sent, length + 1 - sent);
        if (n < 0) { perror("vmtool rpc: write"); return 1; }
        sent += (size_t)n;
    }
    free(line);
    char reply[65536];
    size_t have = 0;
    double deadline = monotonic() + 5;
    while (have < sizeof reply - 1) {
        struct pollfd waiting = {.fd = fd, .events = POLLIN};
        int remaining = (int)((deadline - monotonic()) * 1000);
        if (remaining <= 0 || poll(&waiting, 1, remaining) <= 0) { fprintf(stderr, "vmtool rpc: no reply within 5 s\n"); return 1; }
        ssize_t n = read(fd, reply + have, sizeof reply - 1 - have);
        if (n <= 0) { fprintf(stderr, "vmtool rpc: connection closed before a full line\n"); return 1; }
        have += (size_t)n;
        reply[have] = 0;
        char *end = strchr(reply, '\n');
        if (end) {
            *end = 0;
            puts(reply);
            close(fd);
            return 0;
        }
    }
    fprintf(stderr, "vmtool rpc: reply longer than %zu bytes\n", sizeof reply - 1);
    return 1;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "feed") == 0) return feed(argv[2], (int)strtol(argv[3], NULL, 0), argv[4]);
    if (argc == 4 && strcmp(argv[1], "rpc") == 0) return rpc(argv[2], argv[3]);
    fprintf(stderr, "usage: vmtool feed DEVICE ADDRESS mpu6050|lis3dh\n       vmtool rpc SOCKET JSON\n");
    return 2;
}
