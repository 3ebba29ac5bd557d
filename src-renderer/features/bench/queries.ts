import { useAdminMutation, useAdminQuery, useLiveEvents } from '../../api/hooks';

/** The packages imported into a Store. */
export function usePackages(slug: string | undefined) {
  return useAdminQuery('packages.list', slug === undefined ? null : { slug });
}

/** A Store's Test Bench attempts, newest launch first; a statement of the Store asks again. */
export function useAttempts(slug: string | undefined) {
  const attempts = useAdminQuery('attempts.list', slug === undefined ? null : { slug });
  useLiveEvents(() => attempts.reload(), { store: slug, throttleMs: 300, enabled: slug !== undefined });
  return attempts;
}

/**
 * One attempt, live: each statement event of its Store asks for it again (the events carry no
 * registration), so the timeline grows as the course sends.
 */
export function useAttempt(slug: string | undefined, registration: string | undefined) {
  const input = slug === undefined || registration === undefined ? null : { slug, registration };
  const attempt = useAdminQuery('attempts.get', input);
  const live = useLiveEvents(() => attempt.reload(), { store: slug, throttleMs: 150, enabled: input !== null });
  return { ...attempt, live };
}

export const useDeletePackage = () => useAdminMutation('packages.delete');
export const useLaunch = () => useAdminMutation('packages.launch');
export const useSetReference = () => useAdminMutation('packages.setReference');
export const useClearReference = () => useAdminMutation('packages.clearReference');
export const useWaive = () => useAdminMutation('attempts.waive');
