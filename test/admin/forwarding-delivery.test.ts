/** What a forwarder sends: the webhook signature, the batch bodies, the filter (admin/forwarding-delivery.ts). */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchBody, passesFilter, webhookSignature } from '../../src-server/admin/forwarding-delivery';
import type { ForwardableStatement } from '../../src-server/storage/forwarders';

function row(statement: Record<string, unknown>, voided = false): ForwardableStatement {
  return { seq: 1, statementId: String(statement['id']), statementJson: JSON.stringify(statement), stored: '2026-01-01T00:00:00.000Z', voided };
}

const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const A = row({ id: 'a', verb: { id: COMPLETED }, object: { id: 'http://example.com/course' } });
const B = row({ id: 'b', verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' }, object: { objectType: 'Agent', mbox: 'mailto:x@example.com' } }, true);

describe('forwarding delivery', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 under the secret, as a receiver checks it', () => {
    const body = '{"statements":[]}';
    const expected = createHmac('sha256', 'the-secret').update(`1700000000.${body}`).digest('hex');
    expect(webhookSignature('the-secret', 1_700_000_000, body)).toBe(`t=1700000000,v1=${expected}`);
    expect(webhookSignature('another-secret', 1_700_000_000, body)).not.toBe(`t=1700000000,v1=${expected}`);
  });

  it('sends the stored texts as they are: an object for a webhook, an array for an LRS', () => {
    expect(JSON.parse(batchBody({ kind: 'webhook' }, [A, B]))).toEqual({ statements: [JSON.parse(A.statementJson), JSON.parse(B.statementJson)] });
    expect(batchBody({ kind: 'xapi' }, [A])).toBe(`[${A.statementJson}]`);
  });

  it('filters by verb, object Activity and status, every member given', () => {
    expect([A, B].filter((s) => passesFilter(null, s))).toEqual([A, B]);
    expect([A, B].filter((s) => passesFilter({ verb: COMPLETED }, s))).toEqual([A]);
    expect([A, B].filter((s) => passesFilter({ activity: 'http://example.com/course' }, s))).toEqual([A]);
    expect([A, B].filter((s) => passesFilter({ status: 'voided' }, s))).toEqual([B]);
    expect([A, B].filter((s) => passesFilter({ status: 'accepted', verb: COMPLETED }, s))).toEqual([A]);
    expect([A, B].filter((s) => passesFilter({ status: 'voided', verb: COMPLETED }, s))).toEqual([]);
  });
});
