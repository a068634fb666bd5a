#!/bin/bash
# Boots the microVM executor's VM N times (default 10) and prints, per boot, ms from QEMU's start
# to the job's first stdout byte and to QEMU's exit, then the median, min, max and the
# coefficient of variation; then the same job as a bare process. Exactly the executor's VM
# (QemuMicrovm, TCG, 1 vCPU, 224 MiB, GUEST_CMDLINE plus the host's TSC rate as the executor
# passes it). Needs /tmp/mvm/base.cpio (a copy of WORK_DIR/microvm/initramfs.cpio, which the
# executor builds at its first job) and /tmp/mvm/d.ext4, made like this:
#   t=$(mktemp -d); mkdir -p $t/bin $t/.baton; cp /bin/busybox $t/bin/; cp /bin/busybox $t/.baton/
#   printf '%s\n' 'it=$1; out=$2; err=$3' '/.baton/busybox echo started </dev/null 2>"$err" >"$out"' \
#       'echo "exit $?" >&3' > $t/.baton/job.sh
#   truncate -s 64M /tmp/mvm/d.ext4 && mkfs.ext4 -q -F -E root_owner=0:0 -d $t /tmp/mvm/d.ext4
# A boot that sends nothing within HANG_S seconds (default 90) counts as hung. TSC_RATE=off leaves
# the TSC rate out (the guest calibrates it, as before issue 16's fix), for comparison.
set -euo pipefail
N=${1:-10}
HANG_S=${HANG_S:-90}
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort | tail -1)}
TSC=""
if [ "${TSC_RATE:-on}" != off ] && [ ! -e /sys/devices/system/cpu/cpu0/cpufreq ]; then
    khz=$(awk -F: '/^cpu MHz/ {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
    [ -n "$khz" ] && TSC=" tsc_early_khz=$khz tsc=reliable"
fi
cd /tmp/mvm
python3 - "$N" "$KERNEL" "$TSC" "$HANG_S" <<'PY'
import os, socket, statistics, subprocess, sys, time
n, kernel, tsc, hang_s = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
cmdline = "console=ttyS0 quiet panic=-1 reboot=t no_timer_check lpj=4000000 rdinit=/init baton.iteration=1 baton.memory=0 baton.network=0" + tsc
first, total, hung = [], [], 0
for i in range(n):
    for p in ("so", "se", "ctl.out"):
        if os.path.exists(p): os.unlink(p)
    subprocess.run(["cp", "--sparse=always", "d.ext4", "d1.ext4"], check=True)
    ss = [socket.socket(socket.AF_UNIX) for _ in range(2)]
    for s, p in zip(ss, ("so", "se")): s.bind(p); s.listen(1)
    t0 = time.monotonic()
    q = subprocess.Popen(["qemu-system-x86_64", "-accel", "tcg", "-M", "microvm", "-smp", "1", "-m", "224M", "-nodefaults", "-no-user-config",
        "-display", "none", "-no-reboot", "-kernel", kernel, "-initrd", "base.cpio", "-append", cmdline, "-serial", "file:console.log",
        "-drive", "id=root,file=d1.ext4,format=raw,if=none,cache=unsafe", "-device", "virtio-blk-device,drive=root", "-device", "virtio-serial-device",
        "-chardev", "socket,id=out,path=so", "-device", "virtserialport,chardev=out,name=baton.stdout",
        "-chardev", "socket,id=err,path=se", "-device", "virtserialport,chardev=err,name=baton.stderr",
        "-chardev", "file,id=ctl,path=ctl.out", "-device", "virtserialport,chardev=ctl,name=baton.control", "-nic", "none"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c, _ = ss[0].accept()  # QEMU connects at its start; the guest writes once the job runs
    c.settimeout(hang_s)
    try:
        data = c.recv(100); t1 = time.monotonic()
    except socket.timeout:
        data = b""; t1 = None
    try: q.wait(timeout=30)
    except subprocess.TimeoutExpired: q.kill(); q.wait()
    t2 = time.monotonic()
    for s in ss + [c]: s.close()
    if t1 is None or data != b"started\n":
        hung += 1
        print(f"boot {i + 1}: no output (hung), console: {open('console.log').read()[-200:]!r}", flush=True)
        continue
    first.append(1000 * (t1 - t0)); total.append(1000 * (t2 - t0))
    print(f"boot {i + 1}: first_output_ms={first[-1]:.0f} total_ms={total[-1]:.0f} load={os.getloadavg()[0]:.1f}", flush=True)
t3 = time.monotonic(); subprocess.run(["/bin/echo", "started"], stdout=subprocess.DEVNULL); t4 = time.monotonic()
def summary(name, xs):
    if len(xs) < 2: return f"{name}: too few boots"
    return (f"{name}: median {statistics.median(xs):.0f} ms, min {min(xs):.0f}, max {max(xs):.0f}, "
            f"CV {100 * statistics.stdev(xs) / statistics.mean(xs):.1f}%")
print(f"boots={n} hung={hung} kernel={kernel} tsc={tsc.strip() or 'calibrated by the guest'}")
print(summary("QEMU start -> job's first output", first))
print(summary("QEMU start -> VM gone", total))
print(f"bare process (/bin/echo): {1000 * (t4 - t3):.1f} ms; load average {open('/proc/loadavg').read().strip()}")
PY
