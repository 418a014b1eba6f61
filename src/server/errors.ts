/** An error a client caused; the error handler answers `{ detail }` with its status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (detail: string): HttpError => new HttpError(400, detail);
export const unauthorized = (detail = 'Not signed in'): HttpError => new HttpError(401, detail);
export const notFound = (detail = 'Not found'): HttpError => new HttpError(404, detail);
export const conflict = (detail: string): HttpError => new HttpError(409, detail);
export const paymentRequired = (detail: string): HttpError => new HttpError(402, detail);
export const forbidden = (detail: string): HttpError => new HttpError(403, detail);
