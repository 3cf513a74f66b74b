export { createMailer, type Mailer, type MailerOptions, type MailMessage, type MailOutcome } from './mailer.js';
