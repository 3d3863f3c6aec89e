import math


def softmax(x, axis=-1):
    """Plain loops over every slice along `axis`, computed in float32."""
    x = np.moveaxis(np.array(x, dtype=np.float32), axis, -1)
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        top = max(float(v) for v in row)
        exps = [math.exp(float(v) - top) for v in row]
        total = sum(exps)
        out[index] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)
