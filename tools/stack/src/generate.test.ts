import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingPrismaClients } from './generate';
import { repositoryRoot } from './settings';

describe('missingPrismaClients', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pasar-generate-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names every service of a fresh clone (nothing generated yet)', () => {
    expect(missingPrismaClients(root)).toEqual(['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier']);
  });

  it('names only the services without a generated client', () => {
    for (const name of ['gateway', 'checkout', 'b2b', 'vendor', 'admin']) {
      mkdirSync(join(root, 'apps', name, 'src', 'generated', 'prisma'), { recursive: true });
      writeFileSync(join(root, 'apps', name, 'src', 'generated', 'prisma', 'client.ts'), '');
    }
    expect(missingPrismaClients(root)).toEqual(['notifier']);
  });

  it('finds none missing in this installed repository (postinstall generated them)', () => {
    expect(missingPrismaClients(repositoryRoot())).toEqual([]);
  });
});
