# Shared by scripts/vm-test, scripts/vm-systemd-test and scripts/power-loss-test (sourced, not run):
# tool checks, the static build, Debian's kernel from apt, the machine's Debian mirror, and booting
# QEMU with a verdict read from the serial console.
# The caller sets VM_TAG (the prefix of every line, e.g. "vm-test") and VM_CACHE (.vm-cache).

vm_die() { echo "$VM_TAG: FAIL $*" >&2; exit 1; }

# vm_need COMMAND PACKAGE: every tool the run needs, with the Debian package that provides it.
vm_need() { command -v "$1" >/dev/null 2>&1 || vm_die "'$1' not found: install $2 (apt-get install $2)"; }

# vm_static_binaries BUILD(1|0): runs scripts/build-static when asked; sets VM_BIN to its output.
vm_static_binaries() {
    if [ "$1" -eq 1 ]; then
        echo "$VM_TAG: building static stepd and stepctl (scripts/build-static)"
        scripts/build-static >"$VM_CACHE/build-static.log" 2>&1 || {
            tail -n 30 "$VM_CACHE/build-static.log" >&2
            vm_die "scripts/build-static failed (log: $VM_CACHE/build-static.log)"
        }
    fi
    VM_BIN="$(scripts/build-static --print-bin-path)"
    [ -x "$VM_BIN/stepd" ] || vm_die "$VM_BIN/stepd missing: run scripts/build-static"
}

# vm_apt_mirror SUITE: the Debian archive this machine's own apt uses for SUITE's main component,
# so the VM's root comes through the same mirror (or proxying mirror) as everything else here.
# Reads /etc/apt/sources.list, then sources.list.d/*.list (one-line format) and *.sources (deb822)
# by name, as apt does; prints "URI FILE" for the first enabled `deb` entry with that suite and
# `main` over http(s), ftp or file, and nothing when there is none.
# $VM_APT_DIR replaces /etc/apt (for checking it against other layouts).
vm_apt_mirror() {
    local suite="$1" dir="${VM_APT_DIR:-/etc/apt}" file uri
    for file in "$dir/sources.list" "$dir"/sources.list.d/*; do
        [ -f "$file" ] || continue
        case "$file" in
        *.sources) uri="$(awk -v suite="$suite" '
            function check(   n, u, k) {
                if (!found && types ~ /(^|[ \t])deb([ \t]|$)/ && tolower(enabled) != "no" \
                    && (" " suites " ") ~ ("[ \t]" suite "[ \t]") && (" " comps " ") ~ /[ \t]main[ \t]/) {
                    n = split(uris, u, /[ \t]+/)
                    for (k = 1; k <= n; k++) if (u[k] ~ /^(https?|ftp|file):/) { print u[k]; found = 1; exit }
                }
                types = uris = suites = comps = enabled = key = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { check(); next }
            /^[ \t]/ { if (key == "uris") uris = uris " " $0; else if (key == "suites") suites = suites " " $0
                        else if (key == "components") comps = comps " " $0; next }
            {
                key = tolower($0); sub(/:.*/, "", key)
                value = $0; sub(/^[^:]*:[ \t]*/, "", value)
                if (key == "types") types = value; else if (key == "uris") uris = value
                else if (key == "suites") suites = value; else if (key == "components") comps = value
                else if (key == "enabled") enabled = value
            }
            END { check() }' "$file")" ;;
        *.list) uri="$(awk -v suite="$suite" '
            $1 == "deb" {
                i = 2
                if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                if ($(i + 1) != suite || $i !~ /^(https?|ftp|file):/) next
                for (j = i + 2; j <= NF && $j !~ /^#/; j++) if ($j == "main") { print $i; exit }
            }' "$file")" ;;
        *) continue ;;  # apt reads no other names (*.disabled, *.save, ...)
        esac
        if [ -n "$uri" ]; then
            echo "$uri $file"
            return 0
        fi
    done
}

# vm_fetch_kernel: Debian's kernel, the versioned package linux-image-amd64 depends on, cached per
# version in $VM_CACHE/kernel (vmlinuz, i2c-dev.ko, i2c-stub.ko and the module indexes only).
# Sets VM_KERNEL_PACKAGE, VM_KERNEL_VERSION, VM_KERNEL_DIR and VM_VMLINUZ.
vm_fetch_kernel() {
    VM_KERNEL_PACKAGE="$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }' || true)"
    if [ -z "$VM_KERNEL_PACKAGE" ]; then
        # No package lists (offline CI cache): use a kernel fetched earlier.
        VM_KERNEL_PACKAGE="$(ls -1 "$VM_CACHE/kernel" 2>/dev/null | sort -V | tail -n 1 || true)"
        [ -n "$VM_KERNEL_PACKAGE" ] || vm_die "apt-cache knows no linux-image-amd64 and nothing is cached: run apt-get update"
    fi
    VM_KERNEL_VERSION="${VM_KERNEL_PACKAGE#linux-image-}"
    VM_KERNEL_DIR="$VM_CACHE/kernel/$VM_KERNEL_PACKAGE"
    if [ ! -f "$VM_KERNEL_DIR/complete" ]; then
        echo "$VM_TAG: fetching $VM_KERNEL_PACKAGE with apt-get download"
        rm -rf "$VM_KERNEL_DIR"
        mkdir -p "$VM_KERNEL_DIR"
        local download deb
        vm_download_kernel_package
        download="$VM_DOWNLOAD" deb="$VM_DEB"
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$VM_KERNEL_DIR" \
            "./boot/vmlinuz-$VM_KERNEL_VERSION" \
            "./lib/modules/$VM_KERNEL_VERSION/kernel/drivers/i2c/i2c-dev.ko" \
            "./lib/modules/$VM_KERNEL_VERSION/kernel/drivers/i2c/i2c-stub.ko" \
            "./lib/modules/$VM_KERNEL_VERSION/modules.builtin" \
            "./lib/modules/$VM_KERNEL_VERSION/modules.builtin.modinfo" \
            "./lib/modules/$VM_KERNEL_VERSION/modules.order" || {
            rm -rf "$download"
            vm_die "$deb lacks vmlinuz or the i2c-dev / i2c-stub modules"
        }
        rm -rf "$download"
        touch "$VM_KERNEL_DIR/complete"
    fi
    VM_VMLINUZ="$VM_KERNEL_DIR/boot/vmlinuz-$VM_KERNEL_VERSION"
    [ -f "$VM_VMLINUZ" ] || vm_die "$VM_VMLINUZ missing: delete $VM_KERNEL_DIR and run again"
}

# vm_boot TIMEOUT SERIAL_LOG INITRD MEMORY_MB APPEND: boots the kernel under TCG, shows the VM's
# "$VM_TAG: " lines as they come, and sets VM_VERDICT to the last PASS/FAIL line (dies without one).
# The guest powers off; -no-reboot turns a panic into an exit; timeout bounds a hang. An array
# VM_QEMU_EXTRA, when set, adds QEMU arguments (disks).
vm_boot() {
    local limit=$1 serial=$2 initrd=$3 memory=$4 append=$5 qemu_status
    set +e
    timeout --foreground -k 5 "$limit" qemu-system-x86_64 -accel tcg -cpu max -m "$memory" -smp 1 -nographic -no-reboot \
        -kernel "$VM_VMLINUZ" -initrd "$initrd" -append "$append" ${VM_QEMU_EXTRA[@]+"${VM_QEMU_EXTRA[@]}"} </dev/null 2>&1 \
        | tr -d '\r' | tee "$serial" | grep --line-buffered "^$VM_TAG: " | grep --line-buffered -v "^$VM_TAG: \(PASS\|FAIL\)"
    local status=("${PIPESTATUS[@]}")
    set -e
    qemu_status=${status[0]}
    VM_VERDICT="$(grep -E "^$VM_TAG: (PASS|FAIL)" "$serial" | tail -n 1 || true)"
    if [ -z "$VM_VERDICT" ]; then
        tail -n 30 "$serial" >&2
        if [ "$qemu_status" -eq 124 ] || [ "$qemu_status" -eq 137 ]; then
            vm_die "the VM gave no verdict within $limit s (serial log: $serial)"
        fi
        vm_die "QEMU exited with status $qemu_status before the test ran (serial log: $serial)"
    fi
}

# vm_copy_with_libraries IMAGE FILE: FILE into IMAGE/bin with the loader and every library ldd
# resolves for it, at their own paths (for dynamic tools like i2c-tools or dmsetup, and glibc).
vm_copy_with_libraries() {
    install -m 0755 "$2" "$1/bin/$(basename "$2")"
    ldd "$2" 2>/dev/null | grep -oE '/[^ ]+' | while read -r lib; do
        mkdir -p "$1$(dirname "$lib")"
        cp -L "$lib" "$1$lib"
    done
}

# vm_download_kernel_package: apt-get download of $VM_KERNEL_PACKAGE into a new temporary
# directory; sets VM_DOWNLOAD (the directory, the caller removes it) and VM_DEB (the package).
vm_download_kernel_package() {
    VM_DOWNLOAD="$(mktemp -d)"
    # apt drops privileges to _apt for downloads; give it a directory it can write.
    if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$VM_DOWNLOAD"; fi
    (cd "$VM_DOWNLOAD" && apt-get download -q "$VM_KERNEL_PACKAGE") >"$VM_CACHE/apt-download.log" 2>&1 || {
        cat "$VM_CACHE/apt-download.log" >&2
        rm -rf "$VM_DOWNLOAD"
        vm_die "apt-get download $VM_KERNEL_PACKAGE failed"
    }
    VM_DEB="$(ls "$VM_DOWNLOAD"/*.deb)"
}

# vm_fetch_kernel_modules NAME...: after vm_fetch_kernel, the named modules of that kernel and
# every module they depend on (modprobe --show-depends against the package's own tree), cached
# in $VM_CACHE/kernel-modules/<package>/<names>/lib/modules/<version>/. Sets VM_MODULES_DIR (copy
# its lib/ into an image, then run depmod there). Used by scripts/power-loss-test (ext4, dm-*).
vm_fetch_kernel_modules() {
    local key
    key="$(printf '%s\n' "$@" | sort | tr '\n' ' ' | md5sum | cut -c1-12)"
    VM_MODULES_DIR="$VM_CACHE/kernel-modules/$VM_KERNEL_PACKAGE/$key"
    [ -f "$VM_MODULES_DIR/complete" ] && return 0
    echo "$VM_TAG: fetching $VM_KERNEL_PACKAGE for the modules $*"
    rm -rf "$VM_MODULES_DIR"
    mkdir -p "$VM_MODULES_DIR"
    local download deb tree name module
    vm_download_kernel_package
    download="$VM_DOWNLOAD" deb="$VM_DEB"
    tree="$download/tree"
    mkdir -p "$tree"
    dpkg-deb -x "$deb" "$tree" || { rm -rf "$download"; vm_die "cannot unpack $deb"; }
    depmod -b "$tree" "$VM_KERNEL_VERSION" || { rm -rf "$download"; vm_die "depmod on $deb failed"; }
    for name in "$@"; do
        modprobe -d "$tree" -S "$VM_KERNEL_VERSION" --show-depends "$name" >"$download/deps" 2>&1 || {
            cat "$download/deps" >&2
            rm -rf "$download"
            vm_die "$VM_KERNEL_PACKAGE has no module $name"
        }
        # Lines are "insmod /path/x.ko [options]" or "builtin x".
        awk '$1 == "insmod" { print $2 }' "$download/deps" | while read -r module; do
            mkdir -p "$VM_MODULES_DIR$(dirname "${module#"$tree"}")"
            cp "$module" "$VM_MODULES_DIR${module#"$tree"}"
        done
    done
    rm -rf "$download"
    touch "$VM_MODULES_DIR/complete"
}
