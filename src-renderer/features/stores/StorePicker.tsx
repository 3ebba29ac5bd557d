import { Select, Text } from '@mantine/core';
import type { StoreSummaryView } from '../../../src-server/admin/contract';

/** Chooses the Store a per-Store screen (keys, explorer, ingestion) shows. */
export function StorePicker({
  stores,
  value,
  onChange,
  allLabel,
}: {
  stores: StoreSummaryView[];
  value: string | undefined;
  onChange: (slug: string | undefined) => void;
  /** When given, an extra first choice meaning "every Store". */
  allLabel?: string;
}) {
  const ALL = '__all__';
  const data = [
    ...(allLabel ? [{ value: ALL, label: allLabel }] : []),
    // The name and environment in the field; the slug too in the list, where there is room for it.
    ...stores.map((store) => ({ value: store.slug, label: `${store.name} (${store.environment})` })),
  ];
  const slugs = new Map(stores.map((store) => [store.slug, store.slug]));
  // As wide as the longest choice (within the screen): a long Store name is never cut off.
  const longest = Math.max(...data.map((choice) => choice.label.length));
  return (
    <Select
      label="Store"
      data={data}
      value={value ?? (allLabel ? ALL : null)}
      onChange={(next) => onChange(next === null || next === ALL ? undefined : next)}
      allowDeselect={false}
      w={`min(100%, ${Math.max(32, longest + 6)}ch)`}
      comboboxProps={{ withinPortal: true }}
      renderOption={({ option }) => (
        <div>
          <Text size="sm">{option.label}</Text>
          {slugs.has(option.value) && (
            <Text size="xs" c="dimmed" ff="monospace">
              {option.value}
            </Text>
          )}
        </div>
      )}
    />
  );
}
