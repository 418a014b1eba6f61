import nodemailer, { type Transporter } from 'nodemailer';

/** Mail through the operator's SMTP server (SMTP_URL), one transport for the server's life. */
export interface EmailChannel {
  send(to: string, subject: string, text: string): Promise<void>;
  close(): void;
}

export function createEmailChannel(smtpUrl: string, from: string): EmailChannel {
  const transport: Transporter = nodemailer.createTransport(smtpUrl);
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from, to, subject, text });
    },
    close() {
      transport.close();
    },
  };
}
