#!/bin/bash
# Needs /tmp/mvm/base.cpio (a copy of WORK_DIR/microvm/initramfs.cpio) and /tmp/mvm/d.ext4 (see docs/benchmarks.md).
# one VM: prints ms to the job's first stdout byte and ms to QEMU's exit
cd /tmp/mvm; rm -f so se ctl.out; 
python3 - <<'PY'
import socket,subprocess,time,os
for p in ("so","se"):
    try: os.unlink(p)
    except FileNotFoundError: pass
ss=[socket.socket(socket.AF_UNIX) for _ in range(2)]
for s,p in zip(ss,("so","se")): s.bind(p); s.listen(1)
t0=time.monotonic()
q=subprocess.Popen(["qemu-system-x86_64","-accel","tcg","-M","microvm","-smp","1","-m","224M","-nodefaults","-no-user-config","-display","none","-no-reboot",
 "-kernel","/boot/vmlinuz-6.1.0-56-amd64","-initrd","base.cpio","-append","console=ttyS0 quiet panic=-1 reboot=t no_timer_check lpj=4000000 rdinit=/init baton.iteration=1 baton.memory=0 baton.network=0",
 "-serial","file:bc.log","-drive","id=root,file=d.ext4,format=raw,if=none,cache=unsafe","-device","virtio-blk-device,drive=root","-device","virtio-serial-device",
 "-chardev","socket,id=out,path=so","-device","virtserialport,chardev=out,name=baton.stdout","-chardev","socket,id=err,path=se","-device","virtserialport,chardev=err,name=baton.stderr",
 "-chardev","file,id=ctl,path=ctl.out","-device","virtserialport,chardev=ctl,name=baton.control","-nic","none"],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
c,_=ss[0].accept(); d=c.recv(100); t1=time.monotonic()
q.wait(); t2=time.monotonic()
t3=time.monotonic(); subprocess.run(["/bin/echo","started"],stdout=subprocess.DEVNULL); t4=time.monotonic()
print(f"first_output_ms={1000*(t1-t0):.0f} total_ms={1000*(t2-t0):.0f} bare_process_ms={1000*(t4-t3):.1f} out={d!r} ctl={open('ctl.out').read()!r}")
PY
