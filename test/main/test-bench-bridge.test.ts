/**
 * The desktop app's Test Bench bridge against a real service: a package the console picked is
 * imported with the main process's admin token, refusals come back with the service's words, and
 * only launch URLs of the managed service may open in a window.
 */
import { describe, expect, it } from 'vitest';
import { importPackage, isLaunchUrlAllowed } from '../../src-main/test-bench-bridge';
import { buildZip } from '../bench/zip-writer';
import { useBridgeService } from './bridge-service';
const TINCAN_XML = `<?xml version="1.0" encoding="utf-8"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
  <activity id="https://lore.example/desktop-course" type="http://adlnet.gov/expapi/activities/course">
    <name>Desktop course</name><launch lang="en-US">index.html</launch>
  </activity>
</activities></tincan>`;

describe('the Test Bench bridge of the desktop app', () => {
  const { target } = useBridgeService('desk');

  it('imports the zip the console read, with the admin token the renderer never sees', async () => {
    const zip = buildZip([{ name: 'tincan.xml', content: TINCAN_XML }, { name: 'index.html', content: '<html></html>' }]);
    const result = await importPackage({ resolveTarget: target, fetch }, { slug: 'desk', bytes: new Uint8Array(zip).buffer });
    expect(result).toMatchObject({ ok: true, value: { kind: 'tincan', title: 'Desktop course' } });
  });

  it("hands back the service's refusal, and refuses a request that is not a slug and bytes", async () => {
    const broken = await importPackage({ resolveTarget: target, fetch }, { slug: 'desk', bytes: new Uint8Array(Buffer.from('not a zip')) });
    expect(broken).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_package', message: expect.stringMatching(/not a zip/) as unknown } });
    const malformed = await importPackage({ resolveTarget: target, fetch }, { slug: '../admin', bytes: 'x' });
    expect(malformed).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_input' } });
  });

  it.each([
    ['http://127.0.0.1:8411/desk/packages/p/index.html?endpoint=x', true],
    ['http://127.0.0.1:8412/desk/packages/p/index.html', false],
    ['https://evil.example/desk/packages/p/index.html', false],
    ['file:///etc/passwd', false],
    ['http://user:pw@127.0.0.1:8411/desk/packages/p/index.html', false],
    [42, false],
  ])('opens %s in a launch window: %s', (url, allowed) => {
    expect(isLaunchUrlAllowed(url, 'http://127.0.0.1:8411')).toBe(allowed);
  });
});
