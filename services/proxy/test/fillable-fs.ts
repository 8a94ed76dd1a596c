import { nodeSpoolFs, type SpoolFs } from "../src/observation-spool.ts";

/** The real file system, with a disk that can be made full (every write fails with ENOSPC; with `failOpens`, creating a file too) and descriptors counted. */
export function fillableFs() {
  const state = {
    full: false,
    failOpens: false,
    open: new Set<number>(),
    maxOpen: 0,
    opens: 0,
    writes: 0,
    failedWrites: 0,
    written: [] as Buffer[],
  };
  const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  const fs: SpoolFs = {
    ...nodeSpoolFs,
    openSync: (path, flags) => {
      // A process that leaks descriptors meets its limit, as the proxy did.
      if (state.open.size >= 64) throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
      // A disk so full that not even a new file can be created (no free inode or directory block).
      if (state.full && state.failOpens && flags !== "r")
        throw Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: "ENOSPC" });
      const fd = nodeSpoolFs.openSync(path, flags);
      state.opens++;
      state.open.add(fd);
      state.maxOpen = Math.max(state.maxOpen, state.open.size);
      return fd;
    },
    closeSync: (fd) => {
      state.open.delete(fd);
      nodeSpoolFs.closeSync(fd);
    },
    write: async (fd, buffer, offset, length) => {
      state.writes++;
      if (state.full) {
        state.failedWrites++;
        throw enospc();
      }
      state.written.push(Buffer.from(buffer.subarray(offset, offset + length)));
      return nodeSpoolFs.write(fd, buffer, offset, length);
    },
  };
  return { fs, state };
}
