import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEV_RENDERER_CSP,
  HARDENED_WEB_PREFERENCES,
  RENDERER_CSP,
  isAllowedNavigation,
  isLoopbackHttpUrl,
  isPermissionAllowed,
  isSafeExternalUrl,
  isTrustedIpcSender,
  rendererUrl,
  resolveRendererTarget,
} from '../../src-main/security';

const FILE_APP = 'file:///opt/Lore%20LRS/resources/app.asar/out/renderer/index.html';
const DEV_APP = 'http://localhost:5173/';

/** Parses a CSP string into directive → sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((tokens) => tokens[0])
      .map(([name, ...sources]) => [name as string, sources]),
  );
}

describe('isAllowedNavigation', () => {
  it.each([
    [FILE_APP, FILE_APP, true],
    [`${FILE_APP}#/stores/demo`, FILE_APP, true],
    [`${FILE_APP}?tab=keys`, FILE_APP, true],
    ['file:///etc/passwd', FILE_APP, false],
    ['file:///opt/Lore%20LRS/resources/app.asar/out/renderer/other.html', FILE_APP, false],
    ['file://attacker-host/opt/Lore%20LRS/resources/app.asar/out/renderer/index.html', FILE_APP, false],
    ['https://evil.example/', FILE_APP, false],
    ['javascript:alert(1)', FILE_APP, false],
    ['data:text/html,<script>alert(1)</script>', FILE_APP, false],
    ['not a url', FILE_APP, false],
    ['http://localhost:5173/some/route', DEV_APP, true],
    ['http://localhost:5174/', DEV_APP, false],
    ['http://127.0.0.1:5173/', DEV_APP, false],
    ['https://localhost:5173/', DEV_APP, false],
    [FILE_APP, DEV_APP, false],
    [FILE_APP, 'garbage', false],
  ])('navigating to %s from %s → %s', (url, appUrl, allowed) => {
    expect(isAllowedNavigation(url, appUrl)).toBe(allowed);
  });
});

describe('isTrustedIpcSender', () => {
  it.each([
    [FILE_APP, true],
    [`${FILE_APP}#/keys`, true],
    [undefined, false],
    ['', false],
    ['https://evil.example/', false],
    ['about:blank', false],
  ])('sender frame %s → %s', (frameUrl, trusted) => {
    expect(isTrustedIpcSender(frameUrl, FILE_APP)).toBe(trusted);
  });
});

describe('isSafeExternalUrl', () => {
  it.each([
    ['https://adlnet.gov/projects/xapi/', true],
    ['https://github.com/adlnet/xAPI-Spec?tab=readme#statements', true],
    ['http://example.com/', false],
    ['https://user:pass@example.com/', false],
    ['https://user@example.com/', false],
    ['file:///C:/Windows/System32/calc.exe', false],
    ['smb://attacker/share', false],
    ['ms-msdt:/id PCWDiagnostic', false],
    ['javascript:alert(1)', false],
    ['mailto:someone@example.com', false],
    ['', false],
  ])('%s → %s', (url, safe) => {
    expect(isSafeExternalUrl(url)).toBe(safe);
  });
});

describe('isPermissionAllowed', () => {
  it.each([
    ['clipboard-sanitized-write', true],
    ['clipboard-read', false],
    ['media', false],
    ['geolocation', false],
    ['notifications', false],
    ['openExternal', false],
    ['hid', false],
    ['unknown', false],
  ])('%s → %s', (permission, allowed) => {
    expect(isPermissionAllowed(permission)).toBe(allowed);
  });
});

describe('resolveRendererTarget', () => {
  const indexHtmlPath = '/app/out/renderer/index.html';

  it.each([
    [false, 'http://localhost:5173/', { kind: 'url', url: 'http://localhost:5173/' }],
    [false, 'http://127.0.0.1:5173', { kind: 'url', url: 'http://127.0.0.1:5173' }],
    [false, undefined, { kind: 'file', path: indexHtmlPath }],
    [false, '', { kind: 'file', path: indexHtmlPath }],
    [false, 'https://evil.example/', { kind: 'file', path: indexHtmlPath }],
    [false, 'http://localhost.evil.example:5173/', { kind: 'file', path: indexHtmlPath }],
    [true, 'http://localhost:5173/', { kind: 'file', path: indexHtmlPath }],
  ])('packaged=%s, ELECTRON_RENDERER_URL=%s → %o', (isPackaged, devServerUrl, expected) => {
    expect(resolveRendererTarget({ isPackaged, devServerUrl, indexHtmlPath })).toEqual(expected);
  });

  it.each([
    ['http://[::1]:5173/', true],
    ['ws://localhost:5173/', false],
    ['http://192.168.1.5:5173/', false],
  ])('isLoopbackHttpUrl(%s) → %s', (url, loopback) => {
    expect(isLoopbackHttpUrl(url)).toBe(loopback);
  });

  it('gives a file target the file: URL its document will have', () => {
    expect(rendererUrl({ kind: 'file', path: '/opt/Lore LRS/index.html' })).toBe('file:///opt/Lore%20LRS/index.html');
    expect(rendererUrl({ kind: 'url', url: DEV_APP })).toBe(DEV_APP);
  });
});

describe('renderer CSP', () => {
  const csp = directives(RENDERER_CSP);

  it('allows scripts from the app itself only: no inline, eval or remote script', () => {
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
  });

  it('lets the console reach the app and the local service on loopback, nothing else', () => {
    expect(csp.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:*', 'http://localhost:*']);
  });

  it('is exactly what src-renderer/index.html carries', () => {
    const html = readFileSync(new URL('../../src-renderer/index.html', import.meta.url), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(RENDERER_CSP);
  });

  it('relaxes only script-src (inline, for React refresh) and connect-src (HMR socket) in dev', () => {
    const dev = directives(DEV_RENDERER_CSP);
    expect(dev.get('script-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(dev.get('connect-src')).toEqual([...(csp.get('connect-src') ?? []), 'ws://127.0.0.1:*', 'ws://localhost:*']);
    for (const [name, sources] of csp) {
      if (name !== 'script-src' && name !== 'connect-src') expect(dev.get(name)).toEqual(sources);
    }
  });
});

describe('HARDENED_WEB_PREFERENCES', () => {
  it('isolates and sandboxes the renderer and keeps Node out of it', () => {
    expect(HARDENED_WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});
