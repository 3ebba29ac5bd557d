import { Autocomplete, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { useExplorerSuggestions, type SuggestField } from './queries';

interface FilterAutocompleteProps {
  slug: string | undefined;
  field: SuggestField;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  /** A suggestion was picked: its value (an email address, agent JSON or IRI) is the filter now. */
  onPick: (value: string) => void;
  error?: string | undefined;
}

/**
 * A filter of the Explorer that suggests what the Store holds as one types: learners, verbs or
 * Activities by name. Picking one puts its exact identifier in the field (what the URL keeps);
 * text typed and not picked is searched as words of names.
 */
export function FilterAutocomplete({ slug, field, label, placeholder, value, onChange, onPick, error }: FilterAutocompleteProps) {
  const suggestions = useExplorerSuggestions(slug, field, value);
  const found = useMemo(() => suggestions.data?.suggestions ?? [], [suggestions.data]);
  const byValue = useMemo(() => new Map(found.map((s) => [s.value, s])), [found]);
  return (
    <Autocomplete
      label={label}
      placeholder={placeholder}
      value={value}
      onChange={onChange}
      onOptionSubmit={onPick}
      // The label of an option is what the field shows once it is picked: the identifier.
      data={found.map((s) => ({ value: s.value, label: s.value }))}
      // The service matched already, by words of names: the typed text need not be in the option.
      filter={({ options }) => options}
      renderOption={({ option }) => {
        const suggestion = byValue.get(option.value);
        return (
          <Stack gap={0}>
            <Text size="sm">{suggestion?.label ?? option.value}</Text>
            <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
              {suggestion?.detail ?? ''}
            </Text>
          </Stack>
        );
      }}
      error={error}
      data-testid={`filter-${field}`}
    />
  );
}
