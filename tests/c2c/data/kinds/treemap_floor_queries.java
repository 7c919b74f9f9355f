import java.util.*;

// TreeMap / TreeSet navigation (floorKey, ceiling, first, pollFirst) 2x10^5 times: O(log n) each in Java
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        TreeMap<Integer, Integer> tm = new TreeMap<>();
        TreeSet<Integer> ts = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            int k = (int) (i * 7919L % n);
            tm.put(k, i);
            ts.add(k);
        }
        long s = 0;
        for (int i = 0; i < n; i++) {
            Integer f = tm.floorKey(i * 2 - n / 2);
            Integer c = ts.ceiling(i + 1);
            s += (f == null ? -1 : f) + (c == null ? -1 : c);
        }
        while (ts.size() > n / 2) s += ts.pollFirst();
        System.out.println(s + " " + ts.first() + " " + tm.lastKey());
    }
}
