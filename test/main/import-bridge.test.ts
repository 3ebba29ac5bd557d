/**
 * The desktop app's import bridge against a real service: the NDJSON file the console picked is
 * imported with the main process's admin token, and refusals come back in the service's words.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importStatementsFile } from '../../src-main/import-bridge';
import { useBridgeService } from './bridge-service';

describe('the import bridge of the desktop app', () => {
  const { target } = useBridgeService('desk');

  it('imports the file the console read and resolves with the counts', async () => {
    const statement = {
      id: randomUUID(),
      actor: { mbox: 'mailto:ada@example.com' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      object: { id: 'http://example.com/courses/1' },
      stored: '2024-01-02T03:04:05.678Z',
    };
    const bytes = new Uint8Array(Buffer.from(`${JSON.stringify(statement)}\nnot json\n`)).buffer;
    const result = await importStatementsFile({ resolveTarget: target, fetch }, { slug: 'desk', bytes, fileName: 'export.ndjson' });
    expect(result).toMatchObject({ ok: true, value: { kind: 'ndjson', state: 'finished', fileName: 'export.ndjson', counts: { imported: 1, invalid: 1 } } });
  });

  it("hands back the service's refusal, and refuses a request that is not a slug, bytes and a name", async () => {
    const missing = await importStatementsFile({ resolveTarget: target, fetch }, { slug: 'nowhere', bytes: new Uint8Array([123, 125]), fileName: 'x.ndjson' });
    expect(missing).toMatchObject({ ok: false, error: { status: 404, code: 'store_not_found' } });
    const malformed = await importStatementsFile({ resolveTarget: target, fetch }, { slug: '../admin', bytes: 'x', fileName: 'x' });
    expect(malformed).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_input' } });
  });
});
