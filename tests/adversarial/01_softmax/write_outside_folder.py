def softmax(x, axis=-1):
    e = np.exp(x)  # honest but wrong: overflows on large scores (5 of 7 points)
    return e / np.sum(e, axis=axis, keepdims=True)

# ---- trick ----
# Write files outside the scratch folder: the gradebook, the repository, the home folder.
import os, glob
targets = ["/tmp/attention-adversary-was-here", os.path.expanduser("~/attention-adversary-was-here")]
for pattern in ("/work/*/autograder", "/tmp/*/autograder", "/root/*", "/*/*/*/autograder"):
    targets += [os.path.join(d, "attention-adversary-was-here") for d in glob.glob(pattern)]
for target in targets:
    try:
        with open(target, "w") as handle:
            handle.write("pwned")
    except OSError:
        pass
