/**
 * The protobuf package this code speaks. The packages' major version moves with it: every 1.x
 * release speaks gamefactory.v1, and a coordinator keeps serving v1 while v2 exists beside it.
 */
export const PROTOCOL = 'gamefactory.v1';
