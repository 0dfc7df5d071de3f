import type { ClassifierRequest, ClassifierStageVerdict } from './classifier-types.ts';
import { type AutoModeClassifier, createTwoStageClassifier } from './classifier-types.ts';

/** A risky capability the reviewer names in its explanation. */
interface Hazard {
  pattern: RegExp;
  reason: string;
  /** Kept for the record: every hazard (and every other call) is handed to a person. */
  severe: boolean;
}

const hazards: readonly Hazard[] = [
  {
    pattern: /\b(curl|wget|nc|ncat|netcat|socat|ssh|scp|rsync|ftp|telnet)\b|\/dev\/(tcp|udp)\//,
    reason: 'it can send data over the network',
    severe: true,
  },
  {
    pattern: /\b(ping|nslookup|dig|host)\b/,
    reason: 'DNS and ping lookups can carry data out',
    severe: true,
  },
  {
    pattern: /\|\s*(ba|z|da|k)?sh\b|\beval\b|\bsource\b|\bbash\s+-c\b|\bsh\s+-c\b/,
    reason: 'it runs generated code',
    severe: true,
  },
  {
    pattern: /\.ssh\/|\.aws\/|\.gnupg|\.netrc|\.npmrc|\.env\b|id_rsa|id_ed25519|credentials|\.kube\/config/,
    reason: 'it touches credentials',
    severe: true,
  },
  {
    pattern: /\bsudo\b|\bdoas\b|\bsu\s|\bchmod\s+[0-7]*7[0-7]*\b|\bchown\b/,
    reason: 'it changes privileges or ownership',
    severe: true,
  },
  {
    pattern: /\bgit\s+push\b.*(--force|-f\b)|\bgit\s+reset\s+--hard\b|\bgit\s+clean\s+-[a-z]*f/,
    reason: 'it rewrites or discards history',
    severe: false,
  },
  {
    pattern: /\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r|\bmkfs\b|\bdd\s+if=/,
    reason: 'it deletes recursively or overwrites devices',
    severe: false,
  },
  {
    pattern: /(^|\s)(>|>>)\s*~|\.bashrc|\.zshrc|\.profile|\.gitconfig|\.git\/hooks/,
    reason: 'it changes start-up files or git hooks',
    severe: true,
  },
  { pattern: /\b(npm|pnpm|yarn)\s+(publish|login)|\bdocker\s+push\b/, reason: 'it publishes', severe: true },
];

function describe(request: ClassifierRequest): string {
  const summary =
    typeof request.summary === 'string' && request.summary !== ''
      ? request.summary
      : JSON.stringify(request.input);
  return `${request.toolName} ${summary}`;
}

/**
 * The only stage. Text patterns cannot prove code safe (`python3 -c` decoding hex, `node -e`,
 * `printf` escapes piped to a shell spell anything without naming it), and everything the engine
 * could prove safe (reads and read-only commands inside the working directories, edits of files
 * there that are not protected) auto mode already allowed before asking this reviewer. So it never
 * allows: it names the risk it recognises, if any, and hands the call to a person.
 */
function review(request: ClassifierRequest): Promise<ClassifierStageVerdict> {
  const text = describe(request);
  const hit = hazards.find((hazard) => hazard.pattern.test(text));
  const reason = hit
    ? `${hit.reason}, and without a model classifier only a person may approve calls no rule allows`
    : 'without a model classifier, auto mode allows only what the permission engine proves safe (reads inside the working directories, edits of unprotected files there); a person must approve the rest';
  return Promise.resolve({ decision: 'ask', reason });
}

/**
 * The default classifier when no model is configured: rule-based and deterministic. It never
 * approves; it explains why a person is asked. Configure a model classifier for judgement calls.
 */
export function createRuleBasedClassifier(): AutoModeClassifier {
  return createTwoStageClassifier({ fast: review, careful: review });
}
