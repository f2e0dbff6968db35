import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Where label PDFs are kept (DESIGN §7): a small interface so an S3-compatible driver can come
 * later behind it; local disk under STORAGE_DIR now.
 */
export interface LabelStorage {
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
}

/** A storage key: slash-separated segments of letters, digits, dot, dash, underscore; no `..`. */
export function isStorageKey(key: string): boolean {
  return /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/.test(key) && !key.split('/').includes('..');
}

/** Files under a root directory; writes go to a temporary name first, so a reader never sees half a file. */
export class LocalDiskStorage implements LabelStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    if (!isStorageKey(key)) throw new Error(`bad storage key "${key}"`);
    return join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
