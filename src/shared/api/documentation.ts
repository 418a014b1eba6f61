import { Type, type Static } from 'typebox';
import { MessageBody } from './common';

/** Project documentation. The project is the one named by the Project-Id header. */

/**
 * GET /api/documentation/current. `missing` answers carry the placeholder texts
 * ('No documentation has been created yet.', 'No quickstart guide has been created yet.'); `generating`
 * while a generation runs. `key_value_data` maps a key to any JSON value (objects shown as JSON).
 */
export const DocumentationResponse = Type.Object({
  status: Type.Enum(['ready', 'generating', 'missing']),
  documentation: Type.String(),
  quickstart: Type.String(),
  key_value_data: Type.Record(Type.String(), Type.Unknown()),
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
