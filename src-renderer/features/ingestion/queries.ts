import type { IngestionQueryInput } from '../../../src-server/admin/contract';
import { useAdminQuery, useLiveEvents } from '../../api/hooks';

/** The ingestion report; asked again (at most once a second) as statements arrive. */
export function useIngestion(input: IngestionQueryInput) {
  const report = useAdminQuery('metrics.ingestion', input);
  const live = useLiveEvents(() => report.reload(), { store: input.store, throttleMs: 1000 });
  return { ...report, live };
}
