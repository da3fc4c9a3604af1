import type { OAuthClient } from "@/db/schema";
import { documentHost, isMetadataDocumentClient, redirectsOnlyToLoopback } from "@/lib/oauth/cimd";

type ClientFields = Pick<
  OAuthClient,
  "clientId" | "clientName" | "clientUri" | "redirectUris" | "documentExpiresAt"
>;

/**
 * Who is asking, on the consent screen: the app's name and who vouches for it, where the person
 * will be sent after approving, and warnings that change what approving means.
 * - A client known by its metadata document (CIMD): the name is the one its host publishes, so
 *   it reads "ChatGPT (from chatgpt.com)". When every redirect returns to this computer, any
 *   program here could have started the request: say so.
 * - A client that registered itself: the name is its own claim, and the page says so.
 */
export function OAuthClientIdentity({ client, redirectUri }: { client: ClientFields; redirectUri: string }) {
  const fromDocument = isMetadataDocumentClient(client);
  const name = client.clientName ?? "An unnamed app";
  const host = fromDocument ? documentHost(client) : null;
  const redirectHost = new URL(redirectUri).host || new URL(redirectUri).protocol;

  return (
    <>
      <h1 className="text-2xl font-semibold break-words">
        Connect <span id="client-name">{name}</span>
        {host ? (
          <span id="client-host" className="font-normal text-slate-700">
            {" "}
            (from {host})
          </span>
        ) : null}{" "}
        to your Ledgerlink account?
      </h1>

      <section aria-label="About this app" className="mt-4 space-y-1 text-sm text-slate-700">
        {host ? (
          <p>
            The name is the one <strong>{host}</strong> publishes for this app, at{" "}
            <code className="break-all">{client.clientId}</code>.
          </p>
        ) : (
          <p>
            Ledgerlink does not vet apps that register themselves: the name above is the app's own. Approve
            only if you started this from an app you trust.
          </p>
        )}
        <p>
          After you approve, you will be sent to <strong id="redirect-host">{redirectHost}</strong> (
          <code className="break-all">{redirectUri}</code>).
        </p>
        {client.clientUri ? (
          <p>
            The app says its website is <code className="break-all">{client.clientUri}</code>.
          </p>
        ) : null}
      </section>

      {fromDocument && redirectsOnlyToLoopback(client) ? (
        <p
          id="loopback-warning"
          className="mt-4 rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950"
        >
          <strong>Check before you approve:</strong> {name} returns only to a program on this computer (
          {redirectHost}). Ledgerlink cannot tell which program that is, so any program here could have opened
          this page under {name}'s name. Approve only if you started this yourself from {name} just now.
        </p>
      ) : null}
    </>
  );
}
