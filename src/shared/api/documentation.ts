import { Type, type Static } from 'typebox';
import { MessageBody } from './common';

/** Project documentation. The project is the one named by the Project-Id header. */

/**
 * GET /api/documentation/current. `missing` answers carry the placeholder texts
 * ('No documentation has been created yet.', 'No quickstart guide has been created yet.'); `generating`
 * while a generation runs. `key_value_data` maps a key to any JSON value (objects shown as JSON); its
 * validation entries, like the texts' validation results, are the latest the server recorded.
 */
export const DocumentationResponse = Type.Object({
  status: Type.Enum(['ready', 'generating', 'missing']),
  documentation: Type.String(),
  quickstart: Type.String(),
  key_value_data: Type.Record(Type.String(), Type.Unknown()),
  /** When the texts were written; null before the first documentation. */
  written_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /**
   * Why the texts are out of date (validation results that differ from those they were written from), or
   * null. Their validation results are always the latest: rendered when read from the server's record.
   */
  out_of_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type DocumentationResponse = Static<typeof DocumentationResponse>;

/**
 * POST /api/documentation/generate (SSE, `StreamEvent` frames; the documents leave this path open): the
 * client sends `DOCUMENTATION.generatePrompt`. The stream ends after the documentation and quick start are
 * stored, so a following GET /api/documentation/current sees them.
 */
export const DocumentationGenerateBody = Type.Object(
  { message: MessageBody.properties.message },
  { additionalProperties: false },
);
export type DocumentationGenerateBody = Static<typeof DocumentationGenerateBody>;
