// The floor of cohort activation: the product's two statements (server/restriction/cohorts.ts),
// written out by hand and run through postgres.js as prepared statements in one transaction, so that the
// ratio of the two measures what the product's layers cost (tRPC caller, Drizzle building and mapping),
// not a difference of work. Like the product's, they lock the cohort, lock the pros' statuses, write every
// pro's flag with a history row, update the cohort and record the audit event with the cohort before and
// after. bench/floor.ts keeps the floor's earlier statement (FLOOR_ACTIVATE_SQL), which did less: no
// statuses locked, no history, no audit event; the bench times it beside these for comparison.

/** Statement 1: the cohort row, locked. $1 the cohort id. */
export const FLOOR_LOCK_COHORT_SQL = `select id from restriction_cohorts where id = $1 for update`;

/** A cohort row as the API shows it, as jsonb: timestamps as Date#toJSON writes them (UTC, milliseconds). */
const cohortJson = (row: string) => {
  const iso = (column: string) => `to_char(${row}.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return `jsonb_build_object('id', ${row}.id, 'cohortNumber', ${row}.cohort_number, 'proIds', ${row}.pro_ids,
    'status', ${row}.status, 'activatedAt', ${iso("activated_at")}, 'rollbackAt', ${iso("rollback_at")},
    'rollbackReason', ${row}.rollback_reason, 'createdAt', ${iso("created_at")})`;
};

/**
 * Statement 2, once the cohort is locked: $1 the cohort id, $2 the audit event's id, $3 and $4 the actor's
 * id and email, $5 the request id. Answers the latest gate check and the activated cohort (null columns
 * when the gates block it; no row for an unknown cohort).
 */
export const FLOOR_ACTIVATE_COHORT_SQL = `
  with cohort as (
    select c.*, g.all_gates_met, g.blocked_by from restriction_cohorts c
    left join lateral (select all_gates_met, blocked_by from gate_checks
                       where cohort_id = c.id order by seq desc limit 1) g on true
    where c.id = $1::uuid
  ),
  go as (select * from cohort where all_gates_met),
  locked as (
    select coalesce(jsonb_object_agg(s.pro_id, s.restriction_active), '{}') as flags
    from (select pro_id, restriction_active from pro_restriction_status
          where pro_id = any((select pro_ids from go)::text[]) order by pro_id for update) s
  ),
  changes as (
    select p.pro_id, coalesce((locked.flags ->> p.pro_id)::boolean, false) as previous
    from locked, unnest((select pro_ids from go)::text[]) as p(pro_id)
  ),
  history as (
    insert into pro_flag_changes (pro_id, restriction_active, previous, via, cohort_id, audit_event_id)
    select pro_id, true, previous, 'cohort', (select id from go), $2::uuid from changes order by pro_id
  ),
  flagged as (
    insert into pro_restriction_status (pro_id, restriction_active, cohort_id, updated_at)
    select pro_id, true, (select id from go), now() from changes order by pro_id
    on conflict (pro_id) do update set restriction_active = excluded.restriction_active,
      cohort_id = excluded.cohort_id, updated_at = excluded.updated_at
  ),
  changed as (
    update restriction_cohorts c set status = 'active', activated_at = now() from go where c.id = go.id
    returning c.*
  ),
  event as (
    insert into audit_events (id, actor_id, actor_email, action, target_type, target_id, before, after, reason, request_id)
    select $2::uuid, $3::text, $4::text, 'cohort.activate', 'cohort', changed.id::text,
           ${cohortJson("go")}, ${cohortJson("changed")}, null, $5::text
    from go, changed
  )
  select cohort.all_gates_met, cohort.blocked_by, changed.* from cohort left join changed on true`;
