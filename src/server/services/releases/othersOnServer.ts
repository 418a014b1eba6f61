import type { ServerFacts, StackModel } from '../../../shared/stackModel';
import { containerHolder } from '../serverReadback/parseInspection';

/**
 * What an inspection found on the server, as the project's planning reads it: the ports the project's
 * own stack holds (its containers, in the compose project of its place, from an earlier deploy) are not
 * taken from it. Its redeploy replaces those containers in that compose project, so the planner must
 * neither move its ports nor step its proxy aside for itself, and the verifier must not call its own ports
 * in use. The containers and compose projects stay listed as found.
 */
export function othersOnServer(facts: ServerFacts, ownProject: string): ServerFacts {
  const own = new Set(facts.containers.filter((c) => c.project === ownProject).map((c) => containerHolder(c.name, ownProject)));
  return own.size ? { ...facts, portsInUse: facts.portsInUse.filter((p) => p.holder === undefined || !own.has(p.holder)) } : facts;
}

/** The stack model with its server facts read as `othersOnServer` reads them. */
export function modelWithOthersOnServer(model: StackModel, ownProject: string): StackModel {
  return model.serverFacts ? { ...model, serverFacts: othersOnServer(model.serverFacts, ownProject) } : model;
}
