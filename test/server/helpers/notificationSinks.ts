import http from 'node:http';
import { SMTPServer } from 'smtp-server';
import { listenOnLoopback } from './freePort';

/**
 * A local SMTP server and a local webhook receiver, the two places a project's notifications go, started by
 * a test: what each receives is handed to the test's own callbacks (each keeps it in the shape it reads).
 */
export interface NotificationSinks {
  /** For SMTP_URL. */
  smtpUrl: string;
  /** The receiver's address; a test adds its own path. */
  hookBase: string;
  close(): Promise<void>;
}

export async function startNotificationSinks(on: {
  /** A mail's raw message, and the envelope's recipients joined by commas. */
  mail(body: string, to: string): void;
  /** A webhook post's JSON body and path; answers the status code the receiver replies with (204 by default). */
  post(body: unknown, path: string): number | void;
}): Promise<NotificationSinks> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (c: Buffer) => (body += c.toString('utf8')));
      stream.on('end', () => {
        on.mail(body, session.envelope.rcptTo.map((r) => r.address).join(','));
        callback();
      });
    },
  });
  const smtpPort = await listenOnLoopback(smtp.server);
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const status = on.post(JSON.parse(body) as unknown, req.url ?? '');
      res.writeHead(status ?? 204).end();
    });
  });
  const hookPort = await listenOnLoopback(receiver);
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    hookBase: `http://127.0.0.1:${hookPort}`,
    async close() {
      receiver.close();
      await new Promise<void>((r) => smtp.close(() => r()));
    },
  };
}
