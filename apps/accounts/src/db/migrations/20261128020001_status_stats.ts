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
 * favourites with it, and its replies lose their `in_reply_to_id`. A status has a row once something was counted
 * for it; no row means zeros. An increment inserts the row or adds to it; a decrement only updates, so that it never
 * inserts a row for a status deleted by the same statement (its row goes with it).
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

    CREATE FUNCTION status_stats_add(target bigint, replies integer, reblogs integer, favourites integer)
    RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF target IS NULL THEN
        RETURN;
      ELSIF replies < 0 OR reblogs < 0 OR favourites < 0 THEN
        UPDATE status_stats
           SET replies_count = replies_count + replies,
               reblogs_count = reblogs_count + reblogs,
               favourites_count = favourites_count + favourites
         WHERE status_id = target;
      ELSE
        INSERT INTO status_stats AS s (status_id, replies_count, reblogs_count, favourites_count)
        VALUES (target, replies, reblogs, favourites)
        ON CONFLICT (status_id) DO UPDATE
           SET replies_count = s.replies_count + replies,
               reblogs_count = s.reblogs_count + reblogs,
               favourites_count = s.favourites_count + favourites;
      END IF;
    END $$;

    CREATE FUNCTION statuses_count_in_stats() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.visibility IN ('public', 'unlisted') THEN
        PERFORM status_stats_add(OLD.in_reply_to_id, -1, 0, 0);
        PERFORM status_stats_add(OLD.reblog_of_id, 0, -1, 0);
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.visibility IN ('public', 'unlisted') THEN
        PERFORM status_stats_add(NEW.in_reply_to_id, 1, 0, 0);
        PERFORM status_stats_add(NEW.reblog_of_id, 0, 1, 0);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION favourites_count_in_stats() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        PERFORM status_stats_add(OLD.status_id, 0, 0, -1);
      END IF;
      IF TG_OP <> 'DELETE' THEN
        PERFORM status_stats_add(NEW.status_id, 0, 0, 1);
      END IF;
      RETURN NULL;
    END $$;

    -- Most statuses are neither replies nor boosts: for them no function is called at all.
    CREATE TRIGGER statuses_stats_insert AFTER INSERT ON statuses FOR EACH ROW
      WHEN (NEW.in_reply_to_id IS NOT NULL OR NEW.reblog_of_id IS NOT NULL)
      EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER statuses_stats_delete AFTER DELETE ON statuses FOR EACH ROW
      WHEN (OLD.in_reply_to_id IS NOT NULL OR OLD.reblog_of_id IS NOT NULL)
      EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER statuses_stats_update AFTER UPDATE OF in_reply_to_id, reblog_of_id, visibility ON statuses
      FOR EACH ROW WHEN (OLD.in_reply_to_id IS DISTINCT FROM NEW.in_reply_to_id
                         OR OLD.reblog_of_id IS DISTINCT FROM NEW.reblog_of_id
                         OR OLD.visibility IS DISTINCT FROM NEW.visibility)
      EXECUTE FUNCTION statuses_count_in_stats();
    CREATE TRIGGER favourites_stats AFTER INSERT OR DELETE OR UPDATE OF status_id ON favourites FOR EACH ROW
      EXECUTE FUNCTION favourites_count_in_stats();
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
