/**
 * The team's servers out of reach: a module of its own, so that what checks
 * for it does not load the NATS client.
 * @module
 */
import { UserError } from "../errors.ts";

/** Raised when no server of the team answers: the store goes on alone, and syncs later. */
export class TeamUnreachable extends UserError {
  override name = "TeamUnreachable";
}
