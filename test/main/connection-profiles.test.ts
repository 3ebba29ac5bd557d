import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminTarget } from '../../src-main/admin-forwarder';
import {
  ProfileError,
  createConnectionProfiles,
  localUrlFor,
  normaliseServiceUrl,
} from '../../src-main/connection-profiles';
import type { ProbeRemote, SecretBox } from '../../src-main/connection-profiles';
import { jsonFileStore, safeStorageSecretBox } from '../../src-main/persistence';

/** A stand-in for safeStorage: reversible, but never the plain text, so leaks show in the file. */
function fakeSafeStorage(available = true) {
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain: string) => Buffer.from(`sealed:${[...plain].reverse().join('')}`),
    decryptString: (sealed: Buffer) => {
      const text = sealed.toString();
      if (!text.startsWith('sealed:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return [...text.slice('sealed:'.length)].reverse().join('');
    },
    getSelectedStorageBackend: () => 'gnome_libsecret',
  };
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lore-profiles-'));
  file = join(dir, 'desktop-settings.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(options: { probe?: ProbeRemote; secrets?: SecretBox } = {}) {
  const probe = vi.fn<ProbeRemote>(options.probe ?? (async () => ({ ok: true })));
  const secrets = options.secrets ?? safeStorageSecretBox(fakeSafeStorage(), 'linux');
  let n = 0;
  const profiles = createConnectionProfiles({
    store: jsonFileStore(file),
    secrets,
    probe,
    generateToken: () => `generated-token-${++n}`,
  });
  return { profiles, probe, secrets };
}

const fileText = () => readFileSync(file, 'utf8');
const REMOTE = { label: 'Acme LRS', url: 'https://lrs.acme.example/', token: 'lore_admin_remote-secret' };

describe('connection profiles: defaults', () => {
  it('starts with the local service on 127.0.0.1:8411, active, and keep-running off', () => {
    const { profiles } = setup();
    expect(profiles.localSettings()).toEqual({ port: 8411, host: '127.0.0.1' });
    expect(profiles.preferences()).toEqual({ keepServiceRunning: false });
    expect(profiles.activeId()).toBe('local');
    expect(profiles.describeActive('http://127.0.0.1:8411')).toEqual({ kind: 'local', url: 'http://127.0.0.1:8411', label: 'Local service' });
  });

  it('falls back to defaults for a corrupt or hand-damaged settings file', () => {
    writeFileSync(file, '{"version":1,"local":{"port":"eighty"},"remotes":"x","keepServiceRunning":"yes"}');
    const { profiles } = setup();
    expect(profiles.localSettings()).toEqual({ port: 8411, host: '127.0.0.1' });
    expect(profiles.list('u')).toHaveLength(1);
    expect(profiles.preferences().keepServiceRunning).toBe(false);
  });

  it('saves local settings and preferences and reads them back in a new session', () => {
    setup().profiles.updateLocalSettings({ port: 9000, host: '0.0.0.0' });
    setup().profiles.updatePreferences({ keepServiceRunning: true });
    const { profiles } = setup();
    expect(profiles.localSettings()).toEqual({ port: 9000, host: '0.0.0.0' });
    expect(profiles.preferences()).toEqual({ keepServiceRunning: true });
  });
});

describe('the local admin token', () => {
  it('is generated once per installation and kept only encrypted', () => {
    const first = setup().profiles.localAdminToken();
    expect(first).toBe('generated-token-1');
    expect(fileText()).not.toContain(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(setup().profiles.localAdminToken()).toBe(first);
  });

  it('is replaced when the stored one cannot be decrypted (another keyring)', () => {
    setup().profiles.localAdminToken();
    writeFileSync(file, fileText().replace(/"localAdminToken": "[^"]+"/, '"localAdminToken": "bm90IHNlYWxlZA=="'));
    expect(setup().profiles.localAdminToken()).toBe('generated-token-1');
  });

  it('lives only in memory for this run when the system cannot encrypt', () => {
    const { profiles } = setup({ secrets: safeStorageSecretBox(fakeSafeStorage(false), 'linux') });
    const token = profiles.localAdminToken();
    expect(profiles.localAdminToken()).toBe(token);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});

describe('remote profiles', () => {
  it('tests the remote with its URL and token before saving, then saves the token encrypted', async () => {
    const { profiles, probe } = setup();
    const saved = await profiles.saveRemote(REMOTE);
    expect(probe).toHaveBeenCalledWith({ url: 'https://lrs.acme.example', token: REMOTE.token } satisfies AdminTarget);
    expect(saved).toMatchObject({ kind: 'remote', label: 'Acme LRS', url: 'https://lrs.acme.example', active: true });
    expect(fileText()).not.toContain(REMOTE.token);
    expect(setup().profiles.remoteTarget(saved.id)).toEqual({ url: 'https://lrs.acme.example', token: REMOTE.token });
  });

  it('saves nothing when the test fails, and says why', async () => {
    const { profiles } = setup({
      probe: async () => ({ ok: false, error: { status: 401, code: 'unauthenticated', message: 'The admin token is not valid.' } }),
    });
    const saving = profiles.saveRemote(REMOTE);
    await expect(saving).rejects.toBeInstanceOf(ProfileError);
    await expect(saving).rejects.toMatchObject({
      detail: { status: 401, code: 'unauthenticated', message: 'The connection test failed, nothing was saved: The admin token is not valid.' },
    });
    expect(profiles.list('u')).toHaveLength(1);
    expect(profiles.activeId()).toBe('local');
  });

  it('refuses to save a token when the system has no encrypted storage, before testing', async () => {
    const { profiles, probe } = setup({ secrets: safeStorageSecretBox(fakeSafeStorage(false), 'linux') });
    await expect(profiles.saveRemote(REMOTE)).rejects.toMatchObject({ detail: { code: 'secure_storage_unavailable' } });
    expect(probe).not.toHaveBeenCalled();
  });

  it("counts Linux's basic_text fallback as no encryption", () => {
    const basic = { ...fakeSafeStorage(true), getSelectedStorageBackend: () => 'basic_text' };
    expect(safeStorageSecretBox(basic, 'linux').isAvailable()).toBe(false);
    expect(safeStorageSecretBox(basic, 'darwin').isAvailable()).toBe(true);
  });

  it('replaces the token of a URL saved before instead of adding a second profile', async () => {
    const { profiles } = setup();
    const first = await profiles.saveRemote(REMOTE);
    const second = await profiles.saveRemote({ ...REMOTE, url: 'https://lrs.acme.example', token: 'rotated-token' });
    expect(second.id).toBe(first.id);
    expect(profiles.list('u')).toHaveLength(2);
    expect(profiles.remoteTarget(first.id).token).toBe('rotated-token');
  });

  it('can save without switching to it, switch later, and back to local', async () => {
    const { profiles } = setup();
    const saved = await profiles.saveRemote({ ...REMOTE, activate: false });
    expect(profiles.activeId()).toBe('local');
    profiles.activate(saved.id);
    expect(profiles.describeActive('l')).toEqual({ kind: 'remote', url: 'https://lrs.acme.example', label: 'Acme LRS' });
    profiles.activate('local');
    expect(profiles.activeId()).toBe('local');
    expect(() => profiles.activate('nope')).toThrow(ProfileError);
  });

  it('falls back to local when the active remote is removed', async () => {
    const { profiles } = setup();
    const saved = await profiles.saveRemote(REMOTE);
    profiles.removeRemote(saved.id);
    expect(profiles.activeId()).toBe('local');
    expect(profiles.list('u').map((p) => p.id)).toEqual(['local']);
  });

  it('never puts a token in what the renderer sees', async () => {
    const { profiles } = setup();
    await profiles.saveRemote(REMOTE);
    const views = JSON.stringify([profiles.list('u'), profiles.describeActive('u')]);
    expect(views).not.toContain(REMOTE.token);
    expect(views).not.toContain('sealed');
  });

  it('tells listeners about every change', async () => {
    const { profiles } = setup();
    const changes = vi.fn();
    profiles.onChange(changes);
    await profiles.saveRemote(REMOTE);
    profiles.updatePreferences({ keepServiceRunning: true });
    expect(changes).toHaveBeenCalledTimes(2);
  });
});

describe('normaliseServiceUrl', () => {
  it.each([
    ['https://lrs.example.org/', 'https://lrs.example.org'],
    ['  https://lrs.example.org  ', 'https://lrs.example.org'],
    ['http://192.168.1.10:8411', 'http://192.168.1.10:8411'],
    ['https://example.org/lore/', 'https://example.org/lore'],
    ['https://lrs.example.org/admin/', 'https://lrs.example.org'],
    ['https://lrs.example.org/admin/api/status', 'https://lrs.example.org'],
    ['https://lrs.example.org/?x=1#y', 'https://lrs.example.org'],
  ])('%s → %s', (input, url) => {
    expect(normaliseServiceUrl(input)).toBe(url);
  });

  it.each([['lrs.example.org'], ['ftp://lrs.example.org'], ['https://admin:secret@lrs.example.org'], ['javascript:alert(1)']])(
    'refuses %s with a sentence about the url field',
    (input) => {
      expect(() => normaliseServiceUrl(input)).toThrow(ProfileError);
      try {
        normaliseServiceUrl(input);
      } catch (error) {
        expect((error as ProfileError).detail).toMatchObject({ status: 400, code: 'invalid_url', field: 'url' });
      }
    },
  );
});

describe('localUrlFor', () => {
  it.each([
    [{ port: 8411, host: '127.0.0.1' }, 'http://127.0.0.1:8411'],
    [{ port: 9000, host: '0.0.0.0' }, 'http://127.0.0.1:9000'],
    [{ port: 9000, host: '::1' }, 'http://[::1]:9000'],
    [{ port: 80, host: 'localhost' }, 'http://localhost:80'],
  ])('%o → %s', (settings, url) => {
    expect(localUrlFor(settings)).toBe(url);
  });
});
