import { type Cairn, openCairn } from "../service/cairn.ts";

/** Opens the store, runs `work`, and always closes the store again. */
export async function withCairn<T>(
  storeDir: string,
  work: (cairn: Cairn) => Promise<T>,
): Promise<T> {
  const cairn = await openCairn(storeDir);
  try {
    return await work(cairn);
  } finally {
    await cairn.close();
  }
}
