// Real filesystem faults for storage tests (issue 20): a small ext4 filesystem on a loop device
// that the test creates and removes, to put a broker's log.dirs on.
//  - ENOSPC: the filesystem is small (sizeMiB), and fill() takes all but a few bytes of it with a
//    filler file, so the broker's next writes fail with ENOSPC from the kernel; release() frees it.
//  - EIO: ioShutdown() is ext4's EXT4_IOC_SHUTDOWN ioctl (what xfstests' `godown` does): from then on
//    every read, write, fsync, open of that filesystem fails with EIO, as a disk that died; by
//    default data and journal are flushed first, with 'nologflush' nothing is (a power cut: what was
//    not committed is gone after remount()).
//  - device-mapper (a `linear` table switched to `error`, or dm-flakey) is the other way to inject
//    EIO; deviceMapper() says whether this kernel has it (on the CI machine it does not: no
//    /dev/mapper/control), so EIO comes from the ext4 shutdown, which needs only the loop device.
// Needs root (mount, losetup). When loop devices or mkfs.ext4 are missing, createFaultFs throws
// with the reason: a storage test fails loudly, never skips.
// cleanup() unmounts (lazily if a process still holds files) and removes the image; it is also
// registered for process exit, so a failing test leaves no mount behind.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
  writeSync,
  openSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FaultFsOptions {
  /** Size of the filesystem image (default 64 MiB; ext4 keeps ~10% of small filesystems for itself). */
  sizeMiB?: number;
}

export interface FaultFs {
  /** Where the filesystem is mounted (an empty folder at start, but for ext4's lost+found). */
  readonly mountPoint: string;
  /** The image file backing the loop device. */
  readonly image: string;
  /** Bytes available to an unprivileged writer (statfs f_bavail × f_bsize). */
  availableBytes(): number;
  /** Fills the filesystem until only about `leaveBytes` remain available (a filler file at its root). */
  fill(leaveBytes?: number): void;
  /** Removes the filler files: the space is free again. */
  release(): void;
  /**
   * EXT4_IOC_SHUTDOWN: every I/O on the filesystem now fails with EIO. `sync` (default): data and
   * journal are written out first (nothing written before is lost); `logflush`: the journal only;
   * `nologflush`: nothing (a power cut: uncommitted changes are gone after remount()).
   */
  ioShutdown(mode?: 'sync' | 'logflush' | 'nologflush'): void;
  /** Unmounts and mounts the image again (after ioShutdown: journal replay, the disk "comes back"). */
  remount(): void;
  /** Unmounts (lazily when busy), detaches, removes the image and folders. Idempotent. */
  cleanup(): void;
}

const FILLER_PREFIX = '.fault-fs-filler-';

/** Why this machine cannot provide a loop-mounted filesystem, or null when it can. */
export function loopUnavailable(): string | null {
  if (process.platform !== 'linux') return `loop devices need Linux (this is ${process.platform})`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    return `mounting a loop device needs root (uid ${process.getuid()})`;
  if (!existsSync('/dev/loop-control')) return 'no /dev/loop-control: this kernel has no loop device support';
  for (const tool of ['mkfs.ext4', 'mount', 'umount', 'losetup', 'python3'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  return null;
}

/** Whether device-mapper works here (for a dm `error`/`flakey` target), with the reason when not. */
export function deviceMapper(): { ok: boolean; reason: string } {
  if (!existsSync('/dev/mapper/control'))
    return { ok: false, reason: 'no /dev/mapper/control (kernel without device-mapper)' };
  const r = spawnSync('dmsetup', ['version'], { encoding: 'utf8' });
  if (r.status !== 0) return { ok: false, reason: `dmsetup version: ${(r.stderr || r.stdout || '').trim()}` };
  return { ok: true, reason: r.stdout.trim() };
}

const live = new Set<FaultFs>();
let exitHook = false;

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`fault-fs: ${cmd} ${args.join(' ')} failed: ${(err.stderr ?? '').trim() || err.message}`, {
      cause: e,
    });
  }
}

const isMounted = (dir: string): boolean => spawnSync('mountpoint', ['-q', dir]).status === 0;

/** Creates the image, formats it ext4 and loop-mounts it. Throws with the reason when it cannot. */
export function createFaultFs(opts: FaultFsOptions = {}): FaultFs {
  const why = loopUnavailable();
  if (why) throw new Error(`fault-fs: cannot create a loop-mounted filesystem: ${why}`);
  const sizeMiB = opts.sizeMiB ?? 64;
  const root = mkdtempSync(join(tmpdir(), 'tkafka-faultfs-'));
  const image = join(root, 'disk.img');
  const mountPoint = join(root, 'mnt');
  mkdirSync(mountPoint);
  let mounted = false;
  let cleaned = false;
  const mount = (): void => {
    // -o loop: mount sets the loop device up with autoclear, so unmounting detaches it
    run('mount', ['-t', 'ext4', '-o', 'loop', image, mountPoint]);
    mounted = true;
  };
  const unmount = (): void => {
    if (!mounted) return;
    const r = spawnSync('umount', [mountPoint], { encoding: 'utf8' });
    // a broker (killed, or still running) may hold files: detach now, the kernel finishes later
    if (r.status !== 0 && isMounted(mountPoint)) run('umount', ['-l', mountPoint]);
    mounted = false;
  };
  try {
    run('truncate', ['-s', `${sizeMiB}M`, image]);
    // no reserved blocks (root is the writer here), no lazy init work in the background
    run('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=0,lazy_journal_init=0', image]);
    mount();
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }

  const fs: FaultFs = {
    mountPoint,
    image,
    availableBytes() {
      const s = statfsSync(mountPoint);
      return Number(s.bavail) * Number(s.bsize);
    },
    fill(leaveBytes = 0) {
      const chunk = Buffer.alloc(1 << 20);
      for (let n = 0; ; n++) {
        const avail = fs.availableBytes();
        if (avail <= leaveBytes + 4096) return;
        const fd = openSync(join(mountPoint, `${FILLER_PREFIX}${n}`), 'w');
        try {
          let left = avail - leaveBytes;
          while (left > 0) {
            const w = Math.min(left, chunk.length);
            try {
              writeSync(fd, chunk, 0, w);
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code === 'ENOSPC') return;
              throw e;
            }
            left -= w;
          }
        } finally {
          closeSync(fd);
        }
        if (n > 64) throw new Error(`fault-fs: could not fill ${mountPoint} down to ${leaveBytes} bytes`);
      }
    },
    release() {
      for (const f of readdirSync(mountPoint)) if (f.startsWith(FILLER_PREFIX)) rmSync(join(mountPoint, f));
    },
    ioShutdown(mode = 'sync') {
      // EXT4_IOC_SHUTDOWN = _IOR('X', 125, __u32); flags: 0 = DEFAULT (sync), 1 = LOGFLUSH, 2 = NOLOGFLUSH
      const flag = mode === 'sync' ? 0 : mode === 'logflush' ? 1 : 2;
      run('python3', [
        '-c',
        'import fcntl, os, sys\n' +
          'fd = os.open(sys.argv[1], os.O_RDONLY)\n' +
          'fcntl.ioctl(fd, 0x8004587D, int(sys.argv[2]).to_bytes(4, "little"))\n',
        mountPoint,
        String(flag),
      ]);
    },
    remount() {
      unmount();
      mount();
    },
    cleanup() {
      if (cleaned) return;
      cleaned = true;
      live.delete(fs);
      try {
        unmount();
      } finally {
        if (!isMounted(mountPoint)) rmSync(root, { recursive: true, force: true });
      }
    },
  };
  live.add(fs);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const f of [...live]) {
        try {
          f.cleanup();
        } catch {
          // best effort at exit; the error was already visible to the test
        }
      }
    });
  }
  return fs;
}
