import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { checkStorageKey, type Storage } from './storage';

/**
 * Files in a local folder (created on first write): the default store, right for one
 * machine. Processes on other machines need a shared store such as `@crudsmith/core/s3`.
 */
export function localStorage(dir: string): Storage {
  const root = resolve(dir);
  const pathOf = (key: string) => join(root, checkStorageKey(key));
  return {
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // `wx`: an existing file is never overwritten by a new upload.
      await writeFile(path, data, { flag: 'wx' });
    },
    async get(key) {
      const bytes = await readFile(pathOf(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'EISDIR' || err.code === 'ENOTDIR') return null;
        throw err;
      });
      return bytes && { body: bytes, size: bytes.length };
    },
    async delete(key) {
      await unlink(pathOf(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}
