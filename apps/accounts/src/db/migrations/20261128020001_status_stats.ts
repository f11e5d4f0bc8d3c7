import type { Knex } from '@roost/db'

/**
 * A status's replies, boosts and favourites are counted as they come and go, in `status_stats` (Mastodon's table
 * of the same name), instead of counted each time the status is shown: a status with 100,000 favourites cost that
 * many index entries on every render (docs/performance.md, "Counters"). As Mastodon counts them: replies and boosts
 * that are public or unlisted (a followers-only or direct reply does not show in the count of everyone's view), and
 * every favourite.
 *
 * Triggers keep the counts, so every path that adds or removes a reply, a boost or a favourite counts it, whether a
 * request, the federation inbox, an account's deletion or a cascade: a status deleted takes its boosts and
 * favourites with it, and its replies lose their `in_reply_to_id`. They run once per statement, over the rows it
 * changed (transition tables), and write each status's row once with the statement's sum: a row trigger would update
 * a viral status's row once per favourite when the status is deleted, and Postgres walks every earlier version of a
 * row that one transaction updated before it writes the next (100,000 favourites inserted in one statement took
 * minutes so). A status has a row once something was counted for it; no row means zeros. A sum that only adds
 * inserts the row or adds to it; one that takes away only updates, so that it never inserts a row for a status
 * deleted by the same statement (its row goes with it).
 *
 * The triggers come before the counting of what exists: creating them locks both tables against writes until the
 * migration commits, so nothing is written between the count and the first trigger.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE status_stats (
      status_id bigint PRIMARY KEY REFERENCES statuses (id) ON DELETE CASCADE,
      replies_count bigint NOT NULL DEFAULT 0,
      reblogs_count bigint NOT NULL DEFAULT 0,
      favourites_count bigint NOT NULL DEFAULT 0
    );

    -- One statement's changes, a (status, replies, boosts, favourites) per row it changed, summed per status. A
    -- kind of count the statement does not touch is a null array.
    CREATE FUNCTION status_stats_add(status_ids bigint[], reply_deltas int[], reblog_deltas int[], favourite_deltas int[])
    RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
      WITH sums AS (
        SELECT id AS status_id, coalesce(sum(r), 0) AS replies, coalesce(sum(b), 0) AS reblogs,
               coalesce(sum(f), 0) AS favourites
          FROM unnest(status_ids, reply_deltas, reblog_deltas, favourite_deltas) AS c (id, r, b, f)
         WHERE id IS NOT NULL
         GROUP BY id
        HAVING sum(r) <> 0 OR sum(b) <> 0 OR sum(f) <> 0),
      added AS (
        INSERT INTO status_stats AS s (status_id, replies_count, reblogs_count, favourites_count)
        SELECT * FROM sums WHERE replies >= 0 AND reblogs >= 0 AND favourites >= 0
        ON CONFLICT (status_id) DO UPDATE
           SET replies_count = s.replies_count + excluded.replies_count,
               reblogs_count = s.reblogs_count + excluded.reblogs_count,
               favourites_count = s.favourites_count + excluded.favourites_count)
      UPDATE status_stats AS s
         SET replies_count = s.replies_count + d.replies,
             reblogs_count = s.reblogs_count + d.reblogs,
             favourites_count = s.favourites_count + d.favourites
        FROM sums AS d
       WHERE s.status_id = d.status_id AND (d.replies < 0 OR d.reblogs < 0 OR d.favourites < 0)
    $$;

    -- Each trigger names the transition tables its event has: old_rows (update, delete), new_rows (insert, update).
    CREATE FUNCTION statuses_count_in_stats() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
      ids bigint[] := '{}';
      replies int[] := '{}';
      reblogs int[] := '{}';
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        SELECT ids || array_agg(id), replies || array_agg(r), reblogs || array_agg(b) INTO ids, replies, reblogs
          FROM (SELECT in_reply_to_id, -1, 0 FROM old_rows
                 WHERE in_reply_to_id IS NOT NULL AND visibility IN ('public', 'unlisted')
                UNION ALL
                SELECT reblog_of_id, 0, -1 FROM old_rows
                 WHERE reblog_of_id IS NOT NULL AND visibility IN ('public', 'unlisted')) AS c (id, r, b);
      END IF;
      IF TG_OP <> 'DELETE' THEN
        SELECT ids || array_agg(id), replies || array_agg(r), reblogs || array_agg(b) INTO ids, replies, reblogs
          FROM (SELECT in_reply_to_id, 1, 0 FROM new_rows
                 WHERE in_reply_to_id IS NOT NULL AND visibility IN ('public', 'unlisted')
                UNION ALL
                SELECT reblog_of_id, 0, 1 FROM new_rows
                 WHERE reblog_of_id IS NOT NULL AND visibility IN ('public', 'unlisted')) AS c (id, r, b);
      END IF;
      IF cardinality(ids) > 0 THEN
        PERFORM status_stats_add(ids, replies, reblogs, NULL);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION favourites_count_in_stats() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE
      ids bigint[] := '{}';
      favourites int[] := '{}';
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        SELECT ids || array_agg(status_id), favourites || array_agg(-1) INTO ids, favourites FROM old_rows;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        SELECT ids || array_agg(status_id), favourites || array_agg(1) INTO ids, favourites FROM new_rows;
      END IF;
      IF cardinality(ids) > 0 THEN
        PERFORM status_stats_add(ids, NULL, NULL, favourites);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER statuses_stats_insert AFTER INSERT ON statuses REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER statuses_stats_update AFTER UPDATE ON statuses REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER statuses_stats_delete AFTER DELETE ON statuses REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER favourites_stats_insert AFTER INSERT ON favourites REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION favourites_count_in_stats();
    CREATE TRIGGER favourites_stats_update AFTER UPDATE ON favourites REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION favourites_count_in_stats();
    CREATE TRIGGER favourites_stats_delete AFTER DELETE ON favourites REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION favourites_count_in_stats();
  `)
  await db.raw(COUNT_STATUS_STATS)
}

/** Counts what exists into an empty `status_stats` (a test checks the triggers' counts against it). */
export const COUNT_STATUS_STATS = `
  INSERT INTO status_stats (status_id, replies_count, reblogs_count, favourites_count)
  SELECT id, sum(replies), sum(reblogs), sum(favourites)
    FROM (SELECT in_reply_to_id, 1, 0, 0 FROM statuses
           WHERE in_reply_to_id IS NOT NULL AND visibility IN ('public', 'unlisted')
          UNION ALL SELECT reblog_of_id, 0, 1, 0 FROM statuses
           WHERE reblog_of_id IS NOT NULL AND visibility IN ('public', 'unlisted')
          UNION ALL SELECT status_id, 0, 0, 1 FROM favourites) AS counted (id, replies, reblogs, favourites)
   GROUP BY id`
