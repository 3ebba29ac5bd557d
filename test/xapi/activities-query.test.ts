import { describe, expect, it } from 'vitest';
import { parseActivitiesQuery } from '../../src-server/xapi/activities-query';

// xAPI 1.0.3 Part Three §2.5.s1.table1.row1: activityId, an IRI, required.
describe('parseActivitiesQuery', () => {
  it('accepts an IRI and keeps it exactly as sent', () => {
    expect(parseActivitiesQuery({ activityId: 'http://Example.com/Course/1' })).toEqual({ ok: true, activityId: 'http://Example.com/Course/1' });
  });

  it('rejects a missing activityId and names it (XAPI-00250)', () => {
    expect(parseActivitiesQuery({})).toMatchObject({ ok: false, issue: { field: 'activityId', message: expect.stringMatching(/required/) } });
  });

  it('rejects an activityId that is not an IRI and says what came', () => {
    expect(parseActivitiesQuery({ activityId: 'true' })).toMatchObject({
      ok: false,
      issue: { field: 'activityId', message: expect.stringMatching(/IRI.*got "true"/) },
    });
    expect(parseActivitiesQuery({ activityId: '' })).toMatchObject({ ok: false, issue: { field: 'activityId' } });
  });

  it('rejects a parameter it does not define, suggesting the right case (§3.2.s3.b7, b8)', () => {
    expect(parseActivitiesQuery({ activityID: 'http://example.com/a' })).toMatchObject({
      ok: false,
      issue: { field: 'activityID', message: expect.stringMatching(/did you mean "activityId"/) },
    });
  });
});
