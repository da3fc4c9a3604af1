import { getDb } from "@/db";
import { failureFields } from "@/lib/errors";
import { exportDownload } from "@/lib/export/response";
import { notAllowed, unavailable } from "@/lib/http";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

// GET /api/export?format=json|csv – the signed-in person's data (JSON) or transactions (CSV), streamed as a download
export async function GET(request: Request): Promise<Response> {
  try {
    return await exportDownload(await getDb(), request);
  } catch (error) {
    log.error("export.failed", failureFields(error));
    return (
      unavailable(error) ??
      Response.json(
        { error: "internal", message: "Something went wrong on our side. Please try again." },
        { status: 500 },
      )
    );
  }
}

const otherMethods = notAllowed("GET");

export { otherMethods as DELETE, otherMethods as PATCH, otherMethods as POST, otherMethods as PUT };
