import { z } from "zod";

/**
 * How far this store has synced with its team's stream: the stream positions
 * its own events were published at (`[log seq, stream seq]` pairs), the
 * shared memories remembered and purged among what it published or took in
 * (a purge's compaction leaves no event of the memory, and a purge made here
 * is then still known to be owed to the team), and the last stream position
 * taken in per subject. Never published itself.
 */
export const TeamSynced = z.object({
  type: z.literal("team.synced"),
  v: z.literal(1),
  data: z.object({
    stream: z.string().min(1),
    published: z.array(z.tuple([z.number().int().positive(), z.number().int().positive()]))
      .optional(),
    /** Shared memories published or taken in: id → subject. */
    remembered: z.record(z.string(), z.string()).optional(),
    /** Shared memories whose purge was published or taken in. */
    purged: z.array(z.string()).optional(),
    consumed: z.record(z.string(), z.number().int().nonnegative()).optional(),
  }),
});
