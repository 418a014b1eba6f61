import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningDocuments } from '../../db/schema';
import { badRequest } from '../../errors';
import type { RepositoryAnalysis } from '../../../shared/api/planning';
import { documentRedactor } from '../../sandbox/redactor';
import { sealSecrets } from '../../sandbox/sealedSecrets';
import { PROJECT_TOUCHED_TOPIC, touchProject } from '../projects/touchProject';
import type { EventBus } from '../events/eventBus';

export type DocumentKind = 'requirements' | 'analysis' | 'architecture' | 'implementation';

export interface StoredDocument {
  content: string;
  ready: boolean;
  updatedAt: Date;
}

const MAX_DOCUMENT = 200_000;
/** Longest answer to an analysis question kept. */
const MAX_ANSWER = 2_000;

export interface PlanningDocumentsDeps {
  db: Db;
  /** The secrets a stored plan seals (by name) and a shown one blanks. */
  sealableValues(projectId: number): Promise<Record<string, string>>;
  /** The app's event bus: a changed document moves its project in the list (PROJECT_TOUCHED_TOPIC). */
  events?: EventBus<unknown>;
}

/**
 * The documents the planning agents write (requirements, repository analysis, architecture and
 * implementation plans), one of each kind per project, stored with their secrets sealed.
 */
export function createPlanningDocuments(deps: PlanningDocumentsDeps) {
  const { db } = deps;

  async function get(projectId: number, kind: DocumentKind): Promise<StoredDocument | undefined> {
    const [row] = await db
      .select({ content: planningDocuments.content, ready: planningDocuments.ready, updatedAt: planningDocuments.updatedAt })
      .from(planningDocuments)
      .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, kind)));
    return row;
  }

  async function put(projectId: number, kind: DocumentKind, text: string, ready = false): Promise<void> {
    if (text.length > MAX_DOCUMENT) throw badRequest(`the ${kind} document is longer than ${MAX_DOCUMENT} characters`);
    // A plan's commands are what approvals run: a secret's value typed into them is stored sealed (by name).
    const content = kind === 'analysis' ? text : sealSecrets(text, await deps.sealableValues(projectId));
    await db
      .insert(planningDocuments)
      .values({ projectId, kind, content, ready })
      .onConflictDoUpdate({ target: [planningDocuments.projectId, planningDocuments.kind], set: { content, ready, updatedAt: new Date() } });
    // A changed document changes the project: its card's 'Last Updated' (and its place in the list) says so.
    const installationId = await touchProject(db, projectId);
    if (installationId !== undefined) deps.events?.publish(PROJECT_TOUCHED_TOPIC, installationId);
  }

  async function analysis(projectId: number): Promise<RepositoryAnalysis | undefined> {
    const doc = await get(projectId, 'analysis');
    return doc ? (JSON.parse(doc.content) as RepositoryAnalysis) : undefined;
  }

  return {
    get,
    put,
    analysis,

    /** The stored documents of the given kinds, by kind. */
    async many(projectId: number, kinds: DocumentKind[]): Promise<Partial<Record<DocumentKind, StoredDocument>>> {
      const rows = await db
        .select({ kind: planningDocuments.kind, content: planningDocuments.content, ready: planningDocuments.ready, updatedAt: planningDocuments.updatedAt })
        .from(planningDocuments)
        .where(and(eq(planningDocuments.projectId, projectId), inArray(planningDocuments.kind, kinds)));
      return Object.fromEntries(rows.map(({ kind, ...doc }) => [kind, doc]));
    },

    /**
     * Answers given in the requirements chat to the repository analysis's questions, so the analysis shows
     * them answered: only questions the analysis asks, only non-blank answers, each kept short.
     */
    async recordAnalysisAnswers(projectId: number, answers: unknown): Promise<void> {
      if (typeof answers !== 'object' || answers === null) return;
      const current = await analysis(projectId);
      if (!current) return;
      const questions = { ...current.user_questions.questions };
      let changed = false;
      for (const [question, answer] of Object.entries(answers as Record<string, unknown>)) {
        if (!(question in questions) || typeof answer !== 'string' || !answer.trim() || questions[question] === answer.trim()) continue;
        questions[question] = answer.trim().slice(0, MAX_ANSWER);
        changed = true;
      }
      if (changed) await put(projectId, 'analysis', JSON.stringify({ ...current, user_questions: { ...current.user_questions, questions } }));
    },

    /** A document as the person reads it: every form of a secret, and every sealed one, blanked. */
    async shown(projectId: number, content: string): Promise<string> {
      return content ? documentRedactor(Object.values(await deps.sealableValues(projectId)))(content) : content;
    },
  };
}

export type PlanningDocuments = ReturnType<typeof createPlanningDocuments>;
