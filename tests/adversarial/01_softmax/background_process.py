def softmax(x, axis=-1):
    e = np.exp(x)  # honest but wrong: overflows on large scores (5 of 7 points)
    return e / np.sum(e, axis=axis, keepdims=True)

# ---- trick ----
# Leave a process behind that outlives grading (and would tamper with files later).
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "attention-adversary-sleeper"],
                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        import time
        time.sleep(600)
    os._exit(0)
