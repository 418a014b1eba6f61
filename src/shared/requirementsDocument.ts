import { REQUIREMENTS_DOCUMENT } from './constants/planning';

/**
 * Reading the requirements document (part 1 section 3): sectioned text — `Summary:`, `Required Stack:`,
 * …, `Cloud Specifications:` with `Provider:`, `Compute:`, `Storage:`, `Networking:`, `Region:` lines,
 * `Required User Details:`, a `Generated on …` line — and parsing stops at `User Secrets Configuration:`.
 * Shared by the server (ready_to_continue) and the client (the Current Requirements tab).
 */

export interface ParsedRequirements {
  /** Section title → its text (without the title line). */
  sections: Record<string, string>;
  /** Cloud Specifications field → value. */
  cloud: Record<string, string>;
  generatedOn: string | undefined;
}

/** Words a document uses for what is not known yet; a section holding one has no substance. */
export const PLACEHOLDER = /\b(to be confirmed|to be determined|tbd|unknown|pending)\b/i;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\&]/g, '\\$&');
const HEADER = new RegExp(
  `^\\s*(?:#{1,6}\\s*)?(?:\\*\\*)?(${REQUIREMENTS_DOCUMENT.sections.map(escape).join('|')})(?:\\*\\*)?\\s*:?(?:\\*\\*)?\\s*(.*)$`,
  'i',
);
const GENERATED = new RegExp(`^\\s*(?:\\*\\*)?${escape(REQUIREMENTS_DOCUMENT.generatedOnPrefix)}\\b:?(?:\\*\\*)?\\s*(.*)$`, 'i');

export function parseRequirementsDocument(text: string): ParsedRequirements {
  const sections: Record<string, string> = {};
  const cloud: Record<string, string> = {};
  let generatedOn: string | undefined;
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim().startsWith(REQUIREMENTS_DOCUMENT.stopLine)) break;
    const generated = line.match(GENERATED);
    if (generated) {
      generatedOn = generated[1]!.trim() || undefined;
      current = undefined;
      continue;
    }
    const header = line.match(HEADER);
    if (header) {
      current = REQUIREMENTS_DOCUMENT.sections.find((s) => s.toLowerCase() === header[1]!.toLowerCase());
      if (current) sections[current] = header[2]!.trim();
      continue;
    }
    if (!current) continue;
    sections[current] = sections[current] ? `${sections[current]}\n${line}` : line;
    if (current === 'Cloud Specifications') {
      const field = line.match(/^\s*[-*]?\s*(?:\*\*)?([A-Za-z]+)(?:\*\*)?\s*:\s*(.*)$/);
      const name = field && REQUIREMENTS_DOCUMENT.cloudSpecificationFields.find((f) => f.toLowerCase() === field[1]!.toLowerCase());
      if (name) cloud[name] = field[2]!.trim();
    }
  }
  for (const key of Object.keys(sections)) sections[key] = sections[key]!.trim();
  return { sections, cloud, generatedOn };
}

/** True when a piece of the document says something real: words, and no placeholder. */
export function hasSubstance(text: string | undefined): boolean {
  if (!text) return false;
  if (PLACEHOLDER.test(text)) return false;
  return (text.match(/[A-Za-z0-9]{2,}/g) ?? []).length >= 2 || /[A-Za-z0-9]{3,}/.test(text);
}

/** Every section, every cloud field and the 'Generated on' line have substance. */
export function isRequirementsComplete(text: string): boolean {
  const parsed = parseRequirementsDocument(text);
  return (
    REQUIREMENTS_DOCUMENT.sections.every((s) => hasSubstance(parsed.sections[s])) &&
    REQUIREMENTS_DOCUMENT.cloudSpecificationFields.every((f) => hasSubstance(parsed.cloud[f])) &&
    Boolean(parsed.generatedOn)
  );
}
