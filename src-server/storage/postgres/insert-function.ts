/**
 * Two server-side functions that save round trips. `lore_settled_seq`: record-seq.ts's settled seq
 * in one call. `lore_insert_statements`: a batch of new statements written by one call, in one round trip (the
 * fast path of statement-fast-writes.ts). A write of statements used to be some seventeen queries,
 * each a round trip with its parse and plan; this function runs the same steps server-side with
 * its plans kept per connection, in the order statement-writes.ts runs them:
 *
 * 1. the Store's row FOR SHARE (an erasure or a deletion waits, as for any write of the Store);
 * 2. the checks that make the batch a plain insert, else it answers without writing and the
 *    caller takes the general path: `exists` (an id of the batch is stored: unchanged or a
 *    conflict), `stale` (an Activity definition or an Explorer name the caller took as kept
 *    unchanged, or as absent, is not so any more: read without a lock, as writers compare first);
 * 3. the leases and seqs (record-seq.ts), the rows, the voiding, the index terms and postings,
 *    the new Activity definitions and Explorer names, the console's counts, the notification.
 *
 * Two writers of the same new learner or Activity: the second waits for the first's commit; the
 * same name or definition is then no change. A race lost after the checks otherwise (the same id,
 * another name or definition) raises: serialization_failure (the id) is run again and answers
 * `exists`; LR001 (a name or definition) is answered as `stale`, nothing written.
 *
 * A migration's text: never edited once released; a change is a new migration (CREATE OR REPLACE).
 */
export const INSERT_STATEMENTS_FUNCTION = `
CREATE OR REPLACE FUNCTION lore_insert_statements(
  p_store_id text, p_time_lease bigint,
  p_ids text[], p_statements text[], p_signatures text[], p_stored text[], p_stored_ms bigint[], p_key_ids text[],
  p_verb_ids text[], p_registrations text[], p_voids text[], p_targets text[], p_received text[], p_lrs_added text[],
  p_warnings text[], p_voided_ids text[],
  p_term_kinds text[], p_term_values text[], p_post_terms integer[], p_post_rows integer[], p_post_primary boolean[],
  p_known_activities text[], p_known_definitions text[],
  p_known_kinds text[], p_known_values text[], p_known_names text[], p_known_searches text[],
  p_new_activities text[], p_new_definitions text[], p_new_updated text[],
  p_name_kinds text[], p_name_values text[], p_name_names text[], p_name_searches text[],
  p_word_kinds text[], p_word_words text[], p_word_values text[], p_word_searches text[],
  p_minutes bigint[], p_accepted integer[], p_voided integer[],
  p_top_units text[], p_top_kinds text[], p_top_periods bigint[], p_top_values text[], p_top_counts integer[],
  p_notice text,
  OUT status text, OUT seqs bigint[]
) LANGUAGE plpgsql
-- Planned once per connection: every statement here walks a primary key or unique index whatever the
-- batch's size, so a plan made for each call's arrays would only cost its planning.
SET plan_cache_mode = force_generic_plan
AS $fn$
DECLARE
  v_num integer;
  v_count integer;
  v_n integer := cardinality(p_ids);
  v_term_ids bigint[];
BEGIN
  SELECT num INTO v_num FROM stores WHERE id = p_store_id FOR SHARE;
  IF v_num IS NULL THEN status := 'no_store'; RETURN; END IF;
  IF EXISTS (SELECT 1 FROM statements WHERE store_num = v_num AND statement_id = ANY (p_ids)) THEN
    status := 'exists'; RETURN;
  END IF;
  IF cardinality(p_known_activities) > 0 THEN
    SELECT count(*) INTO v_count FROM activities AS a
      JOIN unnest(p_known_activities, p_known_definitions) AS k(id, definition)
        ON a.store_num = v_num AND a.activity_id = k.id AND a.definition = k.definition;
    IF v_count <> cardinality(p_known_activities) THEN status := 'stale'; RETURN; END IF;
  END IF;
  IF cardinality(p_known_kinds) > 0 THEN
    SELECT count(*) INTO v_count FROM explorer_names AS e
      JOIN unnest(p_known_kinds, p_known_values, p_known_names, p_known_searches) AS k(kind, value, name, search)
        ON e.store_num = v_num AND e.kind = k.kind AND e.value = k.value AND e.name = k.name AND e.search = k.search;
    IF v_count <> cardinality(p_known_kinds) THEN status := 'stale'; RETURN; END IF;
  END IF;
  -- A new definition or name another writer kept meanwhile: the same one is no change; another is.
  IF cardinality(p_new_activities) > 0 AND EXISTS (
       SELECT 1 FROM activities AS a JOIN unnest(p_new_activities, p_new_definitions) AS k(id, definition)
         ON a.store_num = v_num AND a.activity_id = k.id WHERE a.definition <> k.definition) THEN
    status := 'stale'; RETURN;
  END IF;
  IF cardinality(p_name_kinds) > 0 AND EXISTS (
       SELECT 1 FROM explorer_names AS e JOIN unnest(p_name_kinds, p_name_values, p_name_names, p_name_searches) AS k(kind, value, name, search)
         ON e.store_num = v_num AND e.kind = k.kind AND e.value = k.value WHERE e.name <> k.name OR e.search <> k.search) THEN
    status := 'stale'; RETURN;
  END IF;

  PERFORM pg_advisory_xact_lock_shared(p_time_lease);
  PERFORM pg_advisory_xact_lock_shared(CASE WHEN is_called THEN last_value ELSE last_value - 1 END) FROM record_seq;
  SELECT array_agg(s ORDER BY s) INTO seqs FROM (SELECT nextval('record_seq') AS s FROM generate_series(1, v_n)) AS taken;

  INSERT INTO statements (store_num, seq, statement_id, statement, signature, stored, stored_ms, key_id, verb_id,
    registration, voided, voids_statement_id, target_statement_id, received, lrs_added, warnings)
  SELECT v_num, seqs[r.n], r.statement_id, r.statement, r.signature, r.stored, r.stored_ms, r.key_id, r.verb_id, r.registration,
    EXISTS (SELECT 1 FROM statements AS v WHERE v.store_num = v_num AND v.voids_statement_id = r.statement_id),
    r.voids_statement_id, r.target_statement_id, r.received,
    CASE WHEN r.lrs_added IS NULL THEN NULL ELSE string_to_array(r.lrs_added, ',') END, r.warnings
  FROM unnest(p_ids, p_statements, p_signatures, p_stored, p_stored_ms, p_key_ids, p_verb_ids, p_registrations, p_voids,
    p_targets, p_received, p_lrs_added, p_warnings) WITH ORDINALITY
    AS r(statement_id, statement, signature, stored, stored_ms, key_id, verb_id, registration, voids_statement_id,
      target_statement_id, received, lrs_added, warnings, n)
  ON CONFLICT (store_num, statement_id) DO NOTHING;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  IF v_count <> v_n THEN
    RAISE EXCEPTION 'a statement id of the batch was stored meanwhile by another write' USING ERRCODE = 'serialization_failure';
  END IF;
  IF cardinality(p_voided_ids) > 0 THEN
    UPDATE statements SET voided = true WHERE store_num = v_num AND statement_id = ANY (p_voided_ids) AND NOT voided;
  END IF;

  IF cardinality(p_term_kinds) > 0 THEN
    INSERT INTO terms (store_num, kind, value)
    SELECT v_num, t.kind, t.value FROM unnest(p_term_kinds, p_term_values) WITH ORDINALITY AS t(kind, value, n)
    ORDER BY t.n ON CONFLICT (store_num, kind, value) DO NOTHING;
    -- The terms' ids in the order of the arrays; each posting names its term by position.
    SELECT array_agg(terms.id ORDER BY t.n) INTO v_term_ids
      FROM unnest(p_term_kinds, p_term_values) WITH ORDINALITY AS t(kind, value, n)
      JOIN terms ON terms.store_num = v_num AND terms.kind = t.kind AND terms.value = t.value;
    IF coalesce(cardinality(v_term_ids), 0) <> cardinality(p_term_kinds) THEN
      RAISE EXCEPTION 'an index term of the batch is not visible yet' USING ERRCODE = 'serialization_failure';
    END IF;
    INSERT INTO term_postings (store_num, term, seq, is_primary)
    SELECT v_num, v_term_ids[p.term], seqs[p.row], p.is_primary
      FROM unnest(p_post_terms, p_post_rows, p_post_primary) AS p(term, row, is_primary);
  END IF;

  IF cardinality(p_new_activities) > 0 THEN
    INSERT INTO activities (store_num, activity_id, definition, updated)
    SELECT v_num, * FROM unnest(p_new_activities, p_new_definitions, p_new_updated) ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count <> cardinality(p_new_activities) AND EXISTS (
         SELECT 1 FROM activities AS a JOIN unnest(p_new_activities, p_new_definitions) AS k(id, definition)
           ON a.store_num = v_num AND a.activity_id = k.id WHERE a.definition <> k.definition) THEN
      RAISE EXCEPTION 'an Activity definition was stored meanwhile by another write' USING ERRCODE = 'LR001';
    END IF;
  END IF;
  IF cardinality(p_name_kinds) > 0 THEN
    INSERT INTO explorer_names (store_num, kind, value, name, search)
    SELECT v_num, * FROM unnest(p_name_kinds, p_name_values, p_name_names, p_name_searches) ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count <> cardinality(p_name_kinds) AND EXISTS (
         SELECT 1 FROM explorer_names AS e JOIN unnest(p_name_kinds, p_name_values, p_name_names, p_name_searches) AS k(kind, value, name, search)
           ON e.store_num = v_num AND e.kind = k.kind AND e.value = k.value WHERE e.name <> k.name OR e.search <> k.search) THEN
      RAISE EXCEPTION 'an Explorer name was stored meanwhile by another write' USING ERRCODE = 'LR001';
    END IF;
    INSERT INTO explorer_name_words (store_num, kind, word, value, search)
    SELECT v_num, * FROM unnest(p_word_kinds, p_word_words, p_word_values, p_word_searches) ON CONFLICT DO NOTHING;
  END IF;

  INSERT INTO ingestion_minutes (store_num, minute, accepted, voided, rejected)
  SELECT v_num, m.minute, m.accepted, m.voided, 0 FROM unnest(p_minutes, p_accepted, p_voided) AS m(minute, accepted, voided);
  IF cardinality(p_top_units) > 0 THEN
    INSERT INTO ingestion_top (store_num, unit, kind, period, value, count)
    SELECT v_num, * FROM unnest(p_top_units, p_top_kinds, p_top_periods, p_top_values, p_top_counts);
  END IF;

  PERFORM pg_notify('lore_changes', replace(replace(p_notice, '"@from"', seqs[1]::text), '"@to"', seqs[v_n]::text));
  status := 'ok';
END
$fn$;

-- The settled seq (record-seq.ts) in one round trip: the sequence's last value first, then the
-- lowest seq lease, as two statements in this order.
CREATE OR REPLACE FUNCTION lore_settled_seq(p_time_lease_base bigint) RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  v_last bigint;
  v_lowest bigint;
BEGIN
  SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO v_last FROM record_seq;
  SELECT min((classid::bigint << 32) | objid::bigint) INTO v_lowest FROM pg_locks
   WHERE locktype = 'advisory' AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND (classid::bigint << 32) | objid::bigint < p_time_lease_base;
  RETURN greatest(0, least(v_last, coalesce(v_lowest, v_last)));
END
$fn$;
`;

/**
 * `text` with `from`, which must occur exactly once, replaced by `to`: how a later function's
 * migration is made from a released one, failing at load if the released text is not as expected.
 */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`lore_insert_statements: "${from.trim()}" is not once where it was`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

const NOTIFY_IN_TRANSACTION = `  PERFORM pg_notify('lore_changes', replace(replace(p_notice, '"@from"', seqs[1]::text), '"@to"', seqs[v_n]::text));\n`;

/**
 * lore_insert_statements without the notification in its transaction (the storage tells the other
 * processes after the COMMIT, gathered: change-announcer.ts): the same function, which notifies
 * only when given a notice, as a release before this one gives it. Its own migration's text,
 * made from the released one so that the two cannot differ elsewhere.
 */
export const INSERT_STATEMENTS_WITHOUT_NOTIFY = replaceOnce(
  INSERT_STATEMENTS_FUNCTION.slice(0, INSERT_STATEMENTS_FUNCTION.indexOf('-- The settled seq')),
  NOTIFY_IN_TRANSACTION,
  `  IF p_notice IS NOT NULL THEN\n  ${NOTIFY_IN_TRANSACTION}  END IF;\n`,
);

/** What makes INSERT_STATEMENTS_FROM_BYTES of the function before it: each text, found once, and what replaces it. */
const FROM_BYTES_EDITS: ReadonlyArray<readonly [from: string, to: string]> = [
  ['p_ids text[], p_statements text[],', 'p_ids text[], p_statement_bytes bytea, p_statement_ends integer[],'],
  ['  v_term_ids bigint[];\n', '  v_term_ids bigint[];\n  v_statements text[];\n'],
  [
    '  INSERT INTO statements (store_num, seq,',
    `  v_statements := ARRAY(
    SELECT convert_from(substring(p_statement_bytes FROM coalesce(p_statement_ends[i - 1], 0) + 1
      FOR p_statement_ends[i] - coalesce(p_statement_ends[i - 1], 0)), 'UTF8')
    FROM generate_subscripts(p_statement_ends, 1) AS i ORDER BY i);
  INSERT INTO statements (store_num, seq,`,
  ],
  ['FROM unnest(p_ids, p_statements,', 'FROM unnest(p_ids, v_statements,'],
];

/**
 * lore_insert_statements taking the statements' JSON as one bytea and where each ends, in place of
 * a text[]. node-postgres sends a text[] as an array literal: it escapes every quote and backslash
 * of each statement's JSON, a string at a time, and PostgreSQL parses the literal back, character by
 * character. A Buffer goes as binary, byte for byte, and convert_from checks each statement's UTF-8
 * natively. An overload (another signature) made from the function before, so that processes of
 * the release before, calling that one during a rolling upgrade, still find it.
 */
export const INSERT_STATEMENTS_FROM_BYTES = FROM_BYTES_EDITS.reduce((text, [from, to]) => replaceOnce(text, from, to), INSERT_STATEMENTS_WITHOUT_NOTIFY);
