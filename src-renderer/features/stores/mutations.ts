import { useAdminMutation } from '../../api/hooks';

export const useCreateStore = () => useAdminMutation('stores.create');
export const useRenameStore = () => useAdminMutation('stores.rename');
export const useDeleteStore = () => useAdminMutation('stores.delete');
export const useEmptyStore = () => useAdminMutation('stores.empty');
export const useSendTestStatement = () => useAdminMutation('stores.sendTestStatement');
export const useEraseLearner = () => useAdminMutation('erasures.create');
