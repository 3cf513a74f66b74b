// The company behind the key (GET /api/v1/empresa, asked again so the page is current): its details and
// environment, the signing certificate with a warning no one can miss when it expires within 30 days or has
// expired, its printed representation and delivery settings, what its plan includes and this key may do, and the
// key's scopes. Any key may read it.
import type { ComponentChildren } from 'preact';
import { ok, type components } from '../../../sdk/src/index.js';
import { useLoad } from '../api.js';
import { gmt4Time } from '../format.js';
import { isMessageKey, useI18n } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import { WhenLoaded } from '../parts/when-loaded.js';
import { useSession } from '../session.js';

type CompanyView = components['schemas']['CompanyView'];
type Certificate = components['schemas']['CertificateSummary'];

const dayMs = 86_400_000;
/** How long before its expiry a certificate is warned about. */
const warnDays = 30;

export function CompanyPage() {
  const { t } = useI18n();
  const { client } = useSession();
  const loaded = useLoad(async () => (await ok(client.GET('/api/v1/empresa'))).data, []);
  return (
    <section>
      <h1>{t('company.title')}</h1>
      <WhenLoaded loaded={loaded}>
        {(view) => (
          <>
            <CertificateWarning certificate={view.company.certificate} />
            <div class="panels">
              <Profile view={view} />
              <CertificatePanel certificate={view.company.certificate} />
              <Settings view={view} />
              <Key view={view} />
            </div>
            <Access view={view} />
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

type Fact = [MessageKey, ComponentChildren];

function Facts({ rows }: { rows: Fact[] }) {
  const { t } = useI18n();
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{t(label)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Profile({ view }: { view: CompanyView }) {
  const { t } = useI18n();
  const { company } = view;
  const address = [company.address, company.municipality, company.province].filter((part) => part !== null);
  return (
    <section>
      <h2>{t('company.profile')}</h2>
      <Facts
        rows={[
          ['company.legalName', company.legalName],
          ['company.tradeName', company.tradeName ?? '—'],
          ['company.rnc', <strong key="rnc">{company.rnc}</strong>],
          ['company.address', address.length === 0 ? '—' : address.join(', ')],
          ['company.environment', <EnvironmentName key="environment" environment={view.environment} />],
          [
            'company.permissions',
            `${t(`company.permissions.${company.permissions}`)}${company.suspendedReason === null ? '' : `: ${company.suspendedReason}`}`,
          ],
          ['company.certification', t(company.certificationEnabled ? 'common.yes' : 'common.no')],
          ['common.created', gmt4Time(company.createdAt)],
        ]}
      />
    </section>
  );
}

function EnvironmentName({ environment }: { environment: CompanyView['environment'] }) {
  const { t } = useI18n();
  return (
    <>
      <strong>{environment}</strong> · {t(`environment.${environment}`)}
    </>
  );
}

/** Whole days until `notAfter`, negative once past. */
function daysLeft(notAfter: string): number {
  return Math.floor((new Date(notAfter).getTime() - Date.now()) / dayMs);
}

function CertificateWarning({ certificate }: { certificate: Certificate | null }) {
  const { t } = useI18n();
  if (certificate === null)
    return (
      <p class="notice notice-bad">
        <strong>{t('company.noCertificate')}</strong>
      </p>
    );
  const expired = new Date(certificate.notAfter).getTime() <= Date.now();
  const days = daysLeft(certificate.notAfter);
  if (!expired && days >= warnDays) return null;
  const date = gmt4Time(certificate.notAfter);
  return (
    <p class={`notice ${expired ? 'notice-bad' : 'notice-warn'}`}>
      <strong>
        {expired ? t('company.certificateExpired', { date }) : t('company.certificateExpiring', { days, date })}
      </strong>
    </p>
  );
}

function CertificatePanel({ certificate }: { certificate: Certificate | null }) {
  const { t } = useI18n();
  return (
    <section>
      <h2>{t('company.certificate')}</h2>
      {certificate === null ? (
        <p class="empty">{t('company.noCertificate')}</p>
      ) : (
        <Facts
          rows={[
            ['company.subject', certificate.subject],
            ['company.issuer', certificate.issuer],
            ['company.serialNumber', <code key="serial">{certificate.serialNumber}</code>],
            ['company.validFrom', gmt4Time(certificate.notBefore)],
            ['company.validUntil', gmt4Time(certificate.notAfter)],
            ['company.fingerprint', <code key="fingerprint">{certificate.fingerprintSha256}</code>],
          ]}
        />
      )}
    </section>
  );
}

function Settings({ view }: { view: CompanyView }) {
  const { t } = useI18n();
  const { branding, delivery } = view.company;
  return (
    <section>
      <h2>{t('company.branding')}</h2>
      <Facts
        rows={[
          [
            'company.logo',
            branding.logo === null
              ? t('common.no')
              : t('company.logoSize', { width: branding.logo.width, height: branding.logo.height }),
          ],
          ['company.defaultFormat', t(`company.format.${branding.defaultFormat}`)],
          ['company.footerNote', branding.footerNote ?? '—'],
        ]}
      />
      <h2>{t('company.delivery')}</h2>
      <Facts
        rows={[
          ['company.automatic', t(delivery.automatic ? 'common.yes' : 'common.no')],
          ['company.senderName', delivery.senderName ?? t('company.senderDefault')],
          ['company.replyTo', delivery.replyTo ?? '—'],
        ]}
      />
    </section>
  );
}

function Key({ view }: { view: CompanyView }) {
  const { t } = useI18n();
  const scopeList = (label: MessageKey, scopes: string[]) => (
    <>
      <h3>{t(label)}</h3>
      <ul class="chips">
        {scopes.map((scope) => (
          <li key={scope}>
            <code>{scope}</code>
          </li>
        ))}
      </ul>
    </>
  );
  return (
    <section>
      <h2>{t('company.key')}</h2>
      {scopeList('company.scopes', view.scopes)}
      {scopeList('company.effectiveScopes', view.effectiveScopes)}
    </section>
  );
}

function Access({ view }: { view: CompanyView }) {
  const { t } = useI18n();
  const capability = (name: string) => {
    const key = `capability.${name}`;
    return isMessageKey(key) ? t(key) : name;
  };
  const yesNo = (value: boolean) => (
    <span class={`status status-${value ? 'good' : 'neutral'}`}>{t(value ? 'common.yes' : 'common.no')}</span>
  );
  return (
    <section>
      <h2>{t('company.access')}</h2>
      <p>
        {t('company.plan')}: <strong>{view.entitlement.plan}</strong>
      </p>
      <table class="list">
        <caption class="visually-hidden">{t('company.access')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('company.capability')}</th>
            <th scope="col">{t('company.entitled')}</th>
            <th scope="col">{t('company.allowed')}</th>
            <th scope="col">{t('company.viaScopes')}</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(view.access).map(([name, access]) => (
            <tr key={name}>
              <td>{capability(name)}</td>
              <td>{yesNo(access.entitled)}</td>
              <td>{yesNo(access.allowed)}</td>
              <td class="wrap">
                {access.scopes.length === 0
                  ? '—'
                  : access.scopes.map((scope, i) => (
                      <span key={scope}>
                        {i === 0 ? null : ', '}
                        <code>{scope}</code>
                      </span>
                    ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
